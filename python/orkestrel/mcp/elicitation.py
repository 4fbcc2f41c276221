"""MCP elicitation as a way to reach the person at the client: a prompt addressed to their
terminal is asked through `elicitation/create` when the client can render it.

The MCP server records each tool call's request context in `current_request`, so an ask made
while serving a call knows which client session it came from. A form elicitation cannot express
(a password, checkbox or file field) waits for the answering page instead, or fails when no page
is served.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from orkestrel.form import (
    FieldValue,
    FormInterface,
    FormSchema,
    FormValues,
    parse_value,
    serialize_form,
)
from orkestrel.mcp.apps import supports_apps
from orkestrel.mcp.constants import INPUT_REQUIRED
from orkestrel.mcp.principal import principal
from orkestrel.terminal import (
    AnswerResult,
    Emitter,
    PendingForm,
    PromptInterface,
    TerminalError,
    TerminalManagerInterface,
    TimerHandler,
)
from orkestrel.tool.gather import run_beside

logger = logging.getLogger("orkestrel.mcp")

ELICITATION_ATTEMPTS = 3
"""How many times one form is elicited when the person's answers keep failing its rules."""

ELICITATION_KEY = "form"
"""The key of the elicitation in a multi-round-trip `InputRequiredResult` (MCP 2026-07-28)."""

MODERN_PROTOCOLS = frozenset({"2026-07-28"})
"""The MCP versions in which a server asks for input by answering the call with
`InputRequiredResult` and reading the answers from the client's retry."""


@dataclass
class Served:
    """Represents one tool call being served: its MCP request context, the call's params (a
    retry carries `input_responses` and `request_state`), and the `InputRequiredResult` to
    answer with instead of the tool's result, when an ask needs the client's input first. A
    call run as an MCP task has no request: `task`, when its client answers form elicitations,
    is how an ask reaches it (an `elicit_form(message, requested_schema, related_request_id)`
    that waits for the client's `tasks/update`)."""

    context: Any
    params: Any = None
    input_required: dict[str, Any] | None = None
    task: Any = None


class InputRequired(Exception):
    """Raised into the asking tool when its form must first go to the client as an
    `InputRequiredResult`; the served call answers with that result instead."""


_REQUEST: contextvars.ContextVar[Served | None] = contextvars.ContextVar(
    "orkestrel_mcp_request", default=None
)

_HINTS = {
    "time": "a time of day, HH:MM or HH:MM:SS",
    "datetime": "a local date and time, YYYY-MM-DDTHH:MM (no time zone)",
    "color": "a color, #rrggbb",
}
_UNASKABLE = {
    "password": "a password field (MCP elicitation must not collect secrets)",
    "checkbox": "a checkbox field",
    "file": "a file field",
}


@contextmanager
def serving_request(context: Any, params: Any = None, task: Any = None) -> Iterator[Served]:
    """Marks the enclosed tool call as served for the MCP request `context` (the SDK's request
    context, carrying `session` and `request_id`) with the call's `params`, or, for a call run
    as a task, through the task's `task` (see `Served`)."""
    served = Served(context, params, task=task)
    token = _REQUEST.set(served)
    try:
        yield served
    finally:
        _REQUEST.reset(token)


def current_request() -> Served | None:
    """The tool call being served, or `None` outside one."""
    return _REQUEST.get()


def supports_elicitation(session: Any) -> bool:
    """Whether the client of `session` declared that it renders form elicitations."""
    capabilities = getattr(session, "client_capabilities", None)
    if capabilities is None:
        params = getattr(session, "client_params", None)
        capabilities = getattr(params, "capabilities", None)
    elicitation = getattr(capabilities, "elicitation", None)
    if elicitation is None:
        return False
    form, url = getattr(elicitation, "form", None), getattr(elicitation, "url", None)
    return form is not None or url is None


def unaskable(schema: FormSchema) -> str | None:
    """Says which field keeps a form from being asked through elicitation, or `None`."""
    for field in _asked(schema):
        reason = _UNASKABLE.get(field["control"])
        if reason is not None:
            return f"field {field['name']!r} is {reason}"
    return None


def _asked(schema: FormSchema) -> list[Any]:
    return [
        field
        for field in schema["fields"]
        if not field.get("disabled") and not field.get("hidden") and not field.get("locked")
    ]


def form_to_elicitation(schema: FormSchema) -> dict[str, Any] | None:
    """Converts a form into the restricted schema of an elicitation request (one flat object of
    strings, numbers, booleans and single-choice enums), or `None` when a field cannot be
    expressed. Hidden, locked and disabled fields are left out and keep their values."""
    if unaskable(schema) is not None:
        return None
    properties: dict[str, Any] = {}
    required: list[str] = []
    for field in _asked(schema):
        properties[field["name"]] = _property(field)
        if field.get("rule", {}).get("required") is True:
            required.append(field["name"])
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


def _property(field: Any) -> dict[str, Any]:
    control, rule = field["control"], field.get("rule", {})
    made: dict[str, Any] = {"title": field.get("label", field["name"])}
    description = [field["help"]] if "help" in field else []
    if control == "confirm":
        made["type"] = "boolean"
    elif control == "number":
        made["type"] = "integer" if rule.get("integer") is True else "number"
        for key in ("minimum", "maximum"):
            if key in rule:
                made[key] = rule[key]
    elif control == "select":
        made["type"] = "string"
        enabled = [choice for choice in field["choices"] if not choice.get("disabled")]
        if field.get("open"):
            offered = ", ".join(choice["value"] for choice in enabled)
            description.append(f"for example {offered}" if offered else "")
        else:
            made["oneOf"] = [{"const": c["value"], "title": c["label"]} for c in enabled]
    else:
        made["type"] = "string"
        if control == "date":
            made["format"] = "date"
        elif control in _HINTS:
            description.append(_HINTS[control])
        elif rule.get("email") is True:
            made["format"] = "email"
        elif rule.get("url") is True:
            made["format"] = "uri"
        if control in ("text", "editor"):
            for key, name in (("minimum", "minLength"), ("maximum", "maxLength")):
                if isinstance(rule.get(key), int | float):
                    made[name] = int(rule[key])
    if "default" in field:
        made["default"] = field["default"]
    text = "; ".join(part for part in description if part)
    if text:
        made["description"] = text
    return made


def elicitation_to_values(schema: FormSchema, content: Mapping[str, Any] | None) -> FormValues:
    """Reads an accepted elicitation's content back as form values: `null` and unknown keys are
    dropped, and each value is coerced to its control where it can be (a numeric string to a
    number, `"true"` to `True`), else passed on for the form to refuse."""
    fields = {field["name"]: field for field in _asked(schema)}
    values: FormValues = {}
    for name, value in (content or {}).items():
        field = fields.get(name)
        if field is None or value is None:
            continue
        coerced: FieldValue | None = parse_value(field, value)
        if coerced is not None:
            values[name] = coerced
        elif isinstance(value, str | int | float | bool | list):
            values[name] = value
    return values


def _message(schema: FormSchema) -> str:
    parts = [schema.get("label") or schema.get("name") or "Please fill in this form."]
    if "help" in schema:
        parts.append(schema["help"])
    return "\n\n".join(parts)


class ElicitingTerminalManager:
    """Represents a terminal manager whose terminal `terminal` is the person at the MCP client:
    a form asked of it during a tool call is parked as usual and, when the client renders
    elicitations and every asked field can be expressed, also sent as `elicitation/create`.

    Accept answers the form with the content (re-asking, at most `ELICITATION_ATTEMPTS` times,
    while it breaks the form's rules), decline fails the ask with `TerminalError` (`CANCEL`),
    cancel expires it. Whichever answers first, the page or the client, wins. Without an
    elicitation-capable client, or for a form elicitation cannot express, the form waits for the
    answering page when `page` is set and is refused with `TerminalError` (`DRIVER`) otherwise.
    Every other method is the wrapped manager's. `limits` names, by a `LIMIT` error's context
    key (`cap`, `max_bytes`), the option that sets that limit, added to the error's message.
    """

    def __init__(
        self,
        manager: TerminalManagerInterface,
        *,
        terminal: str = "user",
        page: bool = False,
        limits: Mapping[str, str] | None = None,
    ) -> None:
        self._manager = manager
        self._limits = dict(limits or {})
        self._terminal = terminal
        self._page = page
        self._waiting: dict[str, Awaitable[FormValues]] = {}
        self._askers: dict[str, str] = {}
        manager.emitter.on("expire", self._dropped)
        manager.emitter.on("answer", self._settled)

    @property
    def emitter(self) -> Emitter:
        """The wrapped manager's event hub."""
        return self._manager.emitter  # type: ignore[return-value]

    @property
    def client_terminal(self) -> str:
        """The terminal of the person at the MCP client."""
        return self._terminal

    @property
    def count(self) -> int:
        """How many terminals the wrapped manager mounts."""
        return self._manager.count

    @property
    def destroyed(self) -> bool:
        """Whether the wrapped manager is destroyed."""
        return self._manager.destroyed

    def add(
        self,
        name: str,
        *,
        timeout: int | None = None,
        timer: TimerHandler | None = None,
        cap: int | None = None,
    ) -> PromptInterface:
        """Mounts a terminal on the wrapped manager."""
        return self._manager.add(name, timeout=timeout, timer=timer, cap=cap)

    def terminal(self, name: str) -> PromptInterface | None:
        """Gives a terminal of the wrapped manager."""
        return self._manager.terminal(name)

    def terminals(self) -> list[str]:
        """Lists the wrapped manager's terminals."""
        return self._manager.terminals()

    def pending(self, to: str | None = None) -> list[PendingForm]:
        """Lists parked forms, as the wrapped manager does."""
        return self._manager.pending(to)

    def asked_by(self, who: str) -> list[PendingForm]:
        """Lists the forms parked on the client's terminal by calls made for `who` (see
        `principal`: a JWT's subject, bearer credentials, or the local client): what an MCP App
        of theirs may see and answer. (The 2026 protocol era has no session to tell clients
        apart by.)"""
        return [
            record
            for record in self._manager.pending(self._terminal)
            if self._askers.get(record["id"]) == who
        ]

    def answer(self, to: str, id: str, values: object) -> AnswerResult:
        """Answers a parked form, as the wrapped manager does."""
        return self._manager.answer(to, id, values)

    def remove(self, names: str | Sequence[str] | None = None) -> int:
        """Unmounts terminals of the wrapped manager."""
        return self._manager.remove(names)

    def destroy(self) -> None:
        """Destroys the wrapped manager."""
        self._manager.destroy()

    def _park(self, from_: str, to: str, form: FormInterface) -> Awaitable[FormValues]:
        try:
            return self._manager.ask(from_, to, form)
        except TerminalError as error:
            named = [self._limits[key] for key in error.context or {} if key in self._limits]
            if error.code != "LIMIT" or not named:
                raise
            raise TerminalError(
                "LIMIT", f"{error.message}; set by {', '.join(named)}", error.context
            ) from None

    def ask(self, from_: str, to: str, form: FormInterface) -> Awaitable[FormValues]:
        """Parks `form` on `to`; for the client's terminal, during a tool call, also elicits it
        from the client (see the class)."""
        if to != self._terminal or self._manager.terminal(to) is None:
            return self._park(from_, to, form)
        served = current_request()
        context = None if served is None else served.context
        task = None if served is None else served.task
        session = task if task is not None else getattr(context, "session", None)
        capable = task is not None or (session is not None and supports_elicitation(session))
        schema = form.schema
        modern = getattr(context, "protocol_version", None) in MODERN_PROTOCOLS
        if served is not None and modern:
            resumed = self._resume(served, from_, to, schema)
            if resumed is not None:
                return resumed
        requested = form_to_elicitation(schema) if capable else None
        # A client that negotiated MCP Apps shows the form in the ask tool's view.
        viewed = session is not None and supports_apps(session)
        if requested is None and not self._page and not viewed:
            why = unaskable(schema) if capable else "the MCP client does not support elicitation"
            raise TerminalError(
                "DRIVER",
                f"cannot reach the person at {to!r}: {why}, and no answering page is served",
                {"to": to},
            )
        answer = self._park(from_, to, form)
        prompt = self._manager.terminal(to)
        id = None if prompt is None else prompt.find(form)
        if id is not None and served is not None and prompt is not None and prompt.pending(id):
            self._askers[id] = principal(served.context)
        if requested is None or prompt is None or id is None or served is None:
            return answer
        if modern:
            self._waiting[id] = answer
            return self._require(served, id, _message(schema), requested, 1)
        call = _Elicitation(
            self._manager, to, id, prompt, session, context, schema, requested, self._page
        )
        return call.run(answer)

    def _dropped(self, to: str, id: str, *rest: Any) -> None:
        self._waiting.pop(id, None)
        self._askers.pop(id, None)

    def _settled(self, to: str, id: str, *rest: Any) -> None:
        # An answered form keeps its `_waiting` entry: a 2026-era retry still reads it.
        self._askers.pop(id, None)

    def _require(
        self, served: Served, id: str, message: str, requested: dict[str, Any], attempt: int
    ) -> Awaitable[FormValues]:
        elicit = {"mode": "form", "message": message, "requestedSchema": requested}
        served.input_required = {
            "resultType": INPUT_REQUIRED,
            "inputRequests": {
                ELICITATION_KEY: {"method": "elicitation/create", "params": elicit},
            },
            "requestState": json.dumps({"form": id, "attempt": attempt}),
        }
        return _raise(InputRequired(f"form {id!r} waits for the MCP client's input"))

    def _resume(
        self, served: Served, from_: str, to: str, schema: FormSchema
    ) -> Awaitable[FormValues] | None:
        state = _state(getattr(served.params, "request_state", None))
        if state is None or state[0] not in self._waiting:
            return None
        id, attempt = state
        prompt = self._manager.terminal(to)
        record = None if prompt is None else prompt.pending(id)
        if prompt is None or record is None:
            return self._waiting.pop(id)
        if record.get("from") != from_ or record["schema"] != serialize_form(schema):
            return None
        answer = self._waiting.pop(id)
        responses = getattr(served.params, "input_responses", None) or {}
        response = responses.get(ELICITATION_KEY)
        action = getattr(response, "action", None)
        again: str | None = None
        if action == "decline":
            prompt.decline(id, f"the person at {to!r} declined the form")
        elif action == "accept":
            values = elicitation_to_values(schema, getattr(response, "content", None))
            outcome = self._manager.answer(to, id, values)
            if outcome["success"] is False and outcome["error"]["reason"] == "rejected":
                if attempt >= ELICITATION_ATTEMPTS:
                    prompt.decline(
                        id, f"the answers from {to!r} broke the form's rules {attempt} times"
                    )
                else:
                    faults = _faults(outcome["error"]["errors"])
                    again, attempt = f"{_message(schema)}\n\nPlease correct: {faults}", attempt + 1
        elif response is not None:
            prompt.stop(id)
        else:
            again = _message(schema)
        if again is None:
            return answer
        self._waiting[id] = answer
        return self._require(served, id, again, form_to_elicitation(schema) or {}, attempt)


def _state(text: object) -> tuple[str, int] | None:
    if not isinstance(text, str) or len(text) > 256:
        return None
    try:
        state = json.loads(text)
    except ValueError:
        return None
    if not isinstance(state, dict):
        return None
    id, attempt = state.get("form"), state.get("attempt")
    if not isinstance(id, str) or isinstance(attempt, bool) or not isinstance(attempt, int):
        return None
    return id, attempt


def _faults(errors: Sequence[Mapping[str, Any]]) -> str:
    return "; ".join(f"{error['field']}: {error['message']}" for error in errors)


async def _raise(error: Exception) -> FormValues:
    raise error


class _Elicitation:
    def __init__(
        self,
        manager: TerminalManagerInterface,
        to: str,
        id: str,
        prompt: PromptInterface,
        session: Any,
        request: Any,
        schema: FormSchema,
        requested: dict[str, Any],
        page: bool,
    ) -> None:
        self.page = page
        self.manager, self.to, self.id, self.prompt = manager, to, id, prompt
        self.session, self.request = session, request
        self.schema, self.requested = schema, requested

    async def run(self, answer: Awaitable[FormValues]) -> FormValues:
        return await run_beside(answer, self._elicit)

    async def _elicit(self) -> None:
        message = _message(self.schema)
        related = getattr(self.request, "request_id", None)
        elicit = getattr(self.session, "elicit_form", None) or self.session.elicit
        for _ in range(ELICITATION_ATTEMPTS):
            try:
                result = await elicit(message, self.requested, related)
            except Exception as error:
                logger.warning("elicitation of form %s failed: %s", self.id, error)
                if self.page:
                    return
                self.prompt.stop(
                    self.id,
                    reason=TerminalError(
                        "DRIVER", f"the MCP client failed to ask the form: {error}", {"to": self.to}
                    ),
                )
                return
            if result.action == "decline":
                self.prompt.decline(self.id, f"the person at {self.to!r} declined the form")
                return
            if result.action != "accept":
                self.prompt.stop(self.id)
                return
            values = elicitation_to_values(self.schema, result.content)
            outcome = self.manager.answer(self.to, self.id, values)
            if outcome["success"] is True or outcome["error"]["reason"] != "rejected":
                return
            faults = _faults(outcome["error"]["errors"])
            message = f"{_message(self.schema)}\n\nPlease correct: {faults}"
        self.prompt.decline(
            self.id,
            f"the answers from {self.to!r} broke the form's rules {ELICITATION_ATTEMPTS} times",
        )


def current_client() -> int | None:
    """Names the client connection (one MCP session) the tool call being served came in on,
    stable across its calls and distinct from every other open one; `None` outside a served
    call."""
    served = _REQUEST.get()
    session = None if served is None else getattr(served.context, "session", None)
    if session is None:
        return None
    # 2.x hands each request its own session view over one connection; 1.x has one session.
    return id(getattr(session, "_connection", session))
