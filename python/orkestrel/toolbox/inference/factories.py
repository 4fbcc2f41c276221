"""The infer and endpoint tool factories."""

from __future__ import annotations

from typing import Any, cast

from orkestrel.contract import (
    ParseError,
    SchemaBuilder,
    create_contract,
    samples_to_schema,
    schema_to_object,
    schema_to_parameters,
    schema_to_shape,
)
from orkestrel.tool import ProgressPacer, Tool, ToolContext
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import contract_parameters, named_text, parse_arguments
from orkestrel.toolbox.hints import READS
from orkestrel.toolbox.inference.constants import (
    INFER_TOOL_DESCRIPTION,
    INFER_TOOL_NAME,
    INFER_TOOL_PROGRESS_SAMPLES,
    INFER_TOOL_SUMMARY,
)
from orkestrel.toolbox.inference.infer_progress import InferProgress
from orkestrel.toolbox.inference.shapes import infer_tool_shape
from orkestrel.toolbox.inference.types import (
    EndpointDefinition,
    InferAnswer,
    InferCheck,
    InferredSchema,
)


def _check(checker: Any, index: int, candidate: Any) -> InferCheck:
    valid = checker.is_valid(candidate)
    try:
        checker.parse(candidate)
        coercible = True
    except ParseError:
        coercible = False
    if valid:
        return {"index": index, "valid": True, "coercible": coercible}
    return {
        "index": index,
        "valid": False,
        "coercible": coercible,
        "faults": checker.explain(candidate),
    }


def create_infer_tool(*, name: str | None = None, description: str | None = None) -> Tool:
    """Builds a standalone LLM-callable tool that infers a JSON Schema from example values: the
    utility half of the bridge from an existing API or database into an MCP tool.

    With `candidates` it also checks each value against the freshly inferred schema, strictly
    (`valid`) and after coercion (`coercible`).
    """
    contract = create_contract(infer_tool_shape)

    async def infer(args: Any, caller: Any = None) -> InferAnswer:
        call = parse_arguments(contract, args, "malformed infer arguments")
        options = {"format": call.get("format", False), "enum": call.get("enum", False)}
        samples, candidates = call["samples"], call.get("candidates")
        progress = None
        large = len(samples) + len(candidates or ()) > INFER_TOOL_PROGRESS_SAMPLES
        if large and isinstance(caller, ToolContext) and caller.wants_progress:
            progress = InferProgress(ProgressPacer(caller).report, samples, candidates or [])
        if progress is None:
            schema = samples_to_schema(samples, **options)
        else:
            schema = await progress.infer(SchemaBuilder(**options))
        parameters = schema_to_parameters(schema_to_object(schema))
        if parameters is None:
            raise ToolboxError("TOOL", "could not infer a schema", {"schema": schema})
        # `schema_to_object` always gives an object schema; `InferredSchema` is how it is typed.
        inferred = cast(InferredSchema, parameters)
        if candidates is None:
            return inferred
        checker = create_contract(schema_to_shape(schema))
        if progress is None:
            checks = [_check(checker, index, value) for index, value in enumerate(candidates)]
        else:
            checks = await progress.check(lambda index: _check(checker, index, candidates[index]))
        return {"parameters": inferred, "checks": checks}

    label = INFER_TOOL_NAME if name is None else name
    return Tool(
        name=label,
        description=named_text(INFER_TOOL_DESCRIPTION, INFER_TOOL_NAME, label)
        if description is None
        else description,
        summary=named_text(INFER_TOOL_SUMMARY, INFER_TOOL_NAME, label),
        parameters=contract_parameters(contract),
        annotations={**READS, "title": "Infer a schema"},
        execute=infer,
        returns=InferAnswer,
    )


def create_endpoint_tool(
    definition: EndpointDefinition,
    *,
    format: bool = False,
    enum: bool = False,
    validate: bool = True,
) -> Tool:
    """Wraps one concrete endpoint (`EndpointDefinition`) as an LLM-callable tool: the endpoint
    half of the bridge from an existing API or database into an MCP tool.

    `parameters` are inferred once from the definition's samples. By default every call is
    parsed through them, so the handler receives coerced values and a call that cannot be parsed
    is a `TOOL` error carrying the faults; `validate=False` passes the arguments through as
    received.
    """
    name = definition["name"]
    samples = definition["samples"]
    if not isinstance(samples, list) or not samples:
        raise ToolboxError("TOOL", "endpoint requires at least one sample", {"name": name})
    endpoint = Tool(name=name, execute=definition["execute"])
    schema = schema_to_object(samples_to_schema(samples, format=format, enum=enum))
    contract = create_contract(schema_to_shape(schema)) if validate else None

    async def execute(args: Any) -> Any:
        if contract is not None:
            try:
                args = contract.parse(args)
            except ParseError as error:
                context = {"name": name, "faults": error.faults}
                raise ToolboxError("TOOL", "malformed endpoint call arguments", context) from None
        return await endpoint.execute(args)

    return Tool(
        name=name,
        description=definition["description"],
        parameters=schema_to_parameters(schema),
        execute=execute,
    )
