"""`create_prompt_tool` and `create_answer_tool`: the ask and answer halves of the terminal seam."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

import anyio

from orkestrel.contract import Contract, ContractError, ParseError, create_contract
from orkestrel.form import (
    FormError,
    FormSchema,
    FormValues,
    create_form,
    explain_form,
    parse_form,
)
from orkestrel.form.validators import copy_values
from orkestrel.terminal import TerminalError, TerminalManagerInterface
from orkestrel.tool import ToolInterface, create_tool
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import contract_parameters
from orkestrel.toolbox.hints import ANSWERS, ASKS
from orkestrel.toolbox.operation_contract import OperationContract
from orkestrel.toolbox.terminal.constants import (
    ANSWER_TOOL_DESCRIPTION,
    ANSWER_TOOL_NAME,
    ANSWER_TOOL_SUMMARY,
    PROMPT_TOOL_DESCRIPTION,
    PROMPT_TOOL_NAME,
    PROMPT_TOOL_SUMMARY,
)
from orkestrel.toolbox.terminal.helpers import infer_terminal_code
from orkestrel.toolbox.terminal.shapes import answer_tool_shape, prompt_tool_shape
from orkestrel.toolbox.unknown_keys import refuse_unknown_keys

_PARSE_PREFIX = "parse: the value does not satisfy the contract: "


def _plain(args: Any) -> Any:
    # Read a dict through `dict` itself, so a subclass cannot answer one key two ways.
    return dict(dict.items(args)) if isinstance(args, dict) else args


def _summary(text: str, default: str, name: str) -> str:
    return text.replace(f"describe('{default}')", f"describe('{name}')")


def _parse(contract: Contract, args: Any, what: str) -> Any:
    refuse_unknown_keys(contract.schema, args, f"malformed {what} call")
    try:
        return contract.parse(args)
    except (ParseError, ContractError) as error:
        faults = list(getattr(error, "faults", []))
        text = str(ParseError(faults)).removeprefix(_PARSE_PREFIX) if faults else str(error)
        raise ToolboxError(
            "TOOL", f"malformed {what} call: {text}", {"faults": faults[:10]}
        ) from None


def _unusable_choices(schema: FormSchema) -> ToolboxError | None:
    for field in schema["fields"]:
        if field["control"] in ("select", "checkbox"):
            choices: list[Any] = field.get("choices", [])
            if not any(not choice.get("disabled", False) for choice in choices):
                control, name = field["control"], field["name"]
                return ToolboxError(
                    "TOOL",
                    f"{control} field {name!r} has no enabled choices",
                    {"control": control, "field": name},
                )
    return None


def _raise_asking(error: Exception, to: str, manager: TerminalManagerInterface) -> NoReturn:
    expired = ToolboxError("EXPIRE", f"form to {to!r} expired before it was answered", {"to": to})
    if isinstance(error, FormError) and error.code == "ABANDONED":
        raise expired from None
    code = infer_terminal_code(error)
    if code is None or not isinstance(error, TerminalError):
        raise error
    if code == "EXPIRE":
        raise expired from None
    if code == "DEADLOCK":
        raise ToolboxError(
            "DEADLOCK", f"asking {to!r} would create a form cycle", dict(error.context or {})
        ) from None
    if code == "ANSWER":
        raise ToolboxError(
            "ANSWER", f"{to!r} declined the form", {"to": to, "reason": "declined"}
        ) from None
    if error.code == "TARGET":
        raise ToolboxError(
            "TOOL", f"unknown terminal {to!r}", {"to": to, "known": manager.terminals()}
        ) from None
    raise ToolboxError(
        "TOOL", f"asking {to!r} failed: {error.message}", {"to": to, "code": error.code}
    ) from None


def create_prompt_tool(
    *,
    manager: TerminalManagerInterface,
    from_: str,
    name: str | None = None,
    description: str | None = None,
) -> ToolInterface:
    """Builds an LLM-callable form tool, the ask side of the terminal seam: it asks a
    multi-field form and blocks until the addressed terminal answers, returning the resolved
    values record.

    Each call is `{to, schema}`; `from_` is fixed here, so a call cannot speak for another
    terminal. A schema `parse_form` refuses, or a `select`/`checkbox` field with no enabled
    choice, raises `ToolboxError` (`TOOL`) and nothing parks. A cycle raises `DEADLOCK`, an
    unanswered form `EXPIRE`, a declined one `ANSWER`. When the call is cancelled or times out
    while waiting, its form is withdrawn, so the answering side sees it expire.
    """
    contract = create_contract(prompt_tool_shape)
    tool_name = PROMPT_TOOL_NAME if name is None else name

    async def execute(args: Mapping[str, Any]) -> FormValues:
        call = _parse(contract, _plain(args), "ask")
        to: str = call["to"]
        schema = parse_form(call["schema"])
        if schema is None:
            faults = explain_form(call["schema"])
            raise ToolboxError(
                "TOOL",
                f"malformed form schema: {faults[0] if faults else 'not a form'}",
                {"schema": call["schema"], "faults": faults[:10]},
            )
        refused = _unusable_choices(schema)
        if refused is not None:
            raise refused
        form = create_form(schema)
        try:
            answer = manager.ask(from_, to, form)
            try:
                values = await answer
            except anyio.get_cancelled_exc_class():
                _withdraw(manager, to, form)
                raise
        except (TerminalError, FormError) as error:
            _raise_asking(error, to, manager)
        return dict(values)

    return create_tool(
        name=tool_name,
        description=PROMPT_TOOL_DESCRIPTION if description is None else description,
        summary=_summary(PROMPT_TOOL_SUMMARY, PROMPT_TOOL_NAME, tool_name),
        parameters=contract_parameters(contract),
        annotations={**ASKS, "title": "Ask a person"},
        execute=execute,
        returns=FormValues,
    )


def _withdraw(manager: TerminalManagerInterface, to: str, form: Any) -> None:
    prompt = manager.terminal(to)
    id = None if prompt is None else prompt.find(form)
    if prompt is not None and id is not None:
        prompt.stop(id)
    form.destroy()


def create_answer_tool(
    *,
    manager: TerminalManagerInterface,
    to: str,
    name: str | None = None,
    description: str | None = None,
) -> ToolInterface:
    """Builds an LLM-callable answer tool, the answer side of the terminal seam: it lists the
    forms addressed to `to`, or answers one of them by id.

    `pending` answers `[{id, from, schema}]`; `answer` narrows `values` with `is_form_values`
    (else `TOOL`, whatever the id) and answers `{"answered": id}`. An id not waiting on `to`
    (`unknown`), a `to` that is not mounted (`target`), or an answer the form refuses raises
    `ToolboxError` (`ANSWER`) with `context["reason"]` and, for a refusal, the per-field
    `context["errors"]`; the refused form stays waiting.
    """
    tool_name = ANSWER_TOOL_NAME if name is None else name
    contract = OperationContract(answer_tool_shape, label=tool_name)

    async def execute(args: Mapping[str, Any]) -> Any:
        call = contract.parse(_plain(args))
        if call["operation"] == "pending":
            return [_listing(record) for record in manager.pending(to)]
        return _answer(manager, to, call["id"], call["values"])

    return create_tool(
        name=tool_name,
        description=ANSWER_TOOL_DESCRIPTION if description is None else description,
        summary=_summary(ANSWER_TOOL_SUMMARY, ANSWER_TOOL_NAME, tool_name),
        parameters=contract.parameters,
        operations=contract.schemas(),
        annotations={**ANSWERS, "title": "Answer a form"},
        execute=execute,
    )


def _listing(record: Mapping[str, Any]) -> dict[str, Any]:
    listed: dict[str, Any] = {"id": record["id"]}
    if "from" in record:
        listed["from"] = record["from"]
    listed["schema"] = record["schema"]
    return listed


def _answer(manager: TerminalManagerInterface, to: str, id: str, values: Any) -> dict[str, Any]:
    # The values are checked first and the manager is asked next, so a malformed call is
    # `TOOL` whatever its id, and an unmounted terminal is `target` rather than `unknown`.
    answers = copy_values(values)
    if answers is None:
        raise ToolboxError("TOOL", "malformed form values", {"values": values})
    result = manager.answer(to, id, answers)
    if result["success"] is True:
        return {"answered": id}
    failure = result["error"]
    context: dict[str, Any] = {"id": id, "reason": failure["reason"]}
    if failure["reason"] == "unknown":
        raise ToolboxError("ANSWER", f"unknown form {id!r}", context)
    message = f"failed to answer form {id!r}: {failure['reason']}"
    if failure["reason"] == "rejected":
        context["errors"] = failure["errors"]
        detail = "; ".join(f"{e['field'] or 'values'}: {e['message']}" for e in failure["errors"])
        message = f"{message}: {detail}"
    raise ToolboxError("ANSWER", message, context)
