"""Projections between the tool runtime's records and the MCP protocol's messages.

The `*_wire` functions build the protocol's JSON shapes (camelCase keys), which both MCP SDK
lines accept; the public projections wrap them in the installed SDK's models.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import typing
import warnings
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python
from typing_extensions import is_typeddict

from orkestrel._errors import raise_alone as raise_alone
from orkestrel.mcp import sdk
from orkestrel.mcp.constants import EMPTY_INPUT_SCHEMA
from orkestrel.mcp.errors import RemoteToolError
from orkestrel.tool import ToolInterface, ToolResult, tool_to_definition
from orkestrel.tool.json_sizer import JsonSizer
from orkestrel.tool.strict import strict_parameters


def tool_wire(tool: ToolInterface, *, strict: bool = False) -> dict[str, Any]:
    """Projects a tool onto its MCP listing entry as wire JSON: the advertised definition, the
    tool's annotations (their `title` also as the tool's own), and the output schema of its
    declared return type when it has one.

    With `strict`, the input schema is listed in OpenAI's strict subset, as
    `export(..., strict=True)` renders it (every property required, `null` for absent, JSON text
    for an object with free keys) in its lean form (one description per argument; see
    `lean_schema`), or as it is where it has no strict form (`strict_parameters`).

    A tool without parameters lists an empty object schema, and a schema with no root `type`
    is listed with `"type": "object"` added, since MCP arguments are always an object. Raises
    `ValueError` naming the tool when its schema's root type is another type, or its
    annotations are not valid MCP tool annotations.
    """
    definition = tool_to_definition(tool)
    parameters = definition.get("parameters")
    if parameters is None:
        schema: Mapping[str, Any] = copy.deepcopy(EMPTY_INPUT_SCHEMA)
    elif "type" not in parameters:
        schema = {"type": "object", **parameters}
    elif parameters["type"] == "object":
        schema = parameters
    else:
        raise ValueError(
            f"tool {tool.name!r}: MCP needs an object parameter schema, "
            f"not type {parameters['type']!r}"
        )
    # `ToolManager.execute` reads the strict form (null = absent, JSON text) and the plain alike.
    served = strict_parameters(schema, definition["name"], lean=True) if strict else None
    entry: dict[str, Any] = {
        "name": definition["name"],
        "inputSchema": served if served is not None else schema,
    }
    description = definition.get("description")
    if description is not None:
        entry["description"] = description
    annotations = getattr(tool, "annotations", None)
    if annotations is not None:
        entry["annotations"] = _annotations(tool.name, annotations)
        title = entry["annotations"].get("title")
        if title is not None:
            entry["title"] = title
    output = output_schema(tool)
    if output is not None:
        entry["outputSchema"] = output
    return entry


def _annotations(name: str, annotations: Any) -> dict[str, Any]:
    if not isinstance(annotations, Mapping):
        raise ValueError(f"tool {name!r}: invalid MCP annotations: not a mapping")
    try:
        hints = sdk.model("ToolAnnotations", annotations)
    except ValidationError as error:
        raise ValueError(f"tool {name!r}: invalid MCP annotations: {error}") from None
    return sdk.wire(hints)


def tool_to_mcp(tool: ToolInterface) -> Any:
    """Projects a tool onto its MCP listing entry, as the installed SDK's `Tool` model: the
    advertised definition, its annotations, and the output schema of its declared return type.

    Raises `ValueError` naming the tool when its schema's root type is not an object, or its
    annotations are not valid MCP tool annotations.
    """
    return sdk.model("Tool", tool_wire(tool))


def return_type(tool: ToolInterface) -> Any:
    """The structured return type a tool declares: the return annotation of a `@tool`
    function when it is a pydantic model, a `TypedDict` or a dataclass that pydantic can
    describe as a JSON object; else `None`."""
    function = getattr(tool, "__wrapped__", None)
    if function is None:
        return None
    try:
        returned = typing.get_type_hints(function).get("return")
    except Exception:
        return None
    structured = isinstance(returned, type) and (
        issubclass(returned, BaseModel)
        or is_typeddict(returned)
        or dataclasses.is_dataclass(returned)
    )
    if not structured or returned is None:
        return None
    if _schema(returned) is None:
        if is_typeddict(returned):
            # One warning per function and type: the warnings registry keys on the text.
            warnings.warn(
                f"tool function {getattr(function, '__qualname__', tool.name)!r} returns the "
                f"TypedDict {returned.__qualname__!r}, which pydantic cannot describe (on Python "
                "before 3.12 a TypedDict must come from typing_extensions), so the tool lists "
                "no outputSchema; declare it with typing_extensions.TypedDict",
                UserWarning,
                stacklevel=2,
            )
        return None
    return returned


@lru_cache(maxsize=256)
def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(kind)


@lru_cache(maxsize=256)
def _schema(kind: Any) -> dict[str, Any] | None:
    try:
        schema: dict[str, Any] = _adapter(kind).json_schema(mode="serialization")
    except Exception:  # a type pydantic cannot describe (`typing.TypedDict` before 3.12)
        return None
    return schema if schema.get("type") == "object" else None


def output_schema(tool: ToolInterface) -> dict[str, Any] | None:
    """The JSON Schema (an object root) of the structured value a tool declares it returns,
    or `None` when it declares none: the return type of a `@tool` function, or else the tool's
    own `returns` type (see `Tool`), whose `TypedDict`s list their keys and no others."""
    kind = return_type(tool)
    if kind is not None:
        return copy.deepcopy(_schema(kind))
    declared = getattr(tool, "returns", None)
    if declared is None:
        return None
    schema = _declared_schema(declared)
    if schema is None:
        raise ValueError(f"tool {tool.name!r}: its returns type has no JSON object schema")
    return copy.deepcopy(schema)


@lru_cache(maxsize=64)
def _declared_schema(kind: Any) -> dict[str, Any] | None:
    try:
        schema: dict[str, Any] = _adapter(kind).json_schema(mode="serialization")
    except Exception:  # a type pydantic cannot describe
        return None
    _close(schema)
    definitions = schema.get("$defs", {})
    if schema.get("type") == "object":
        return schema
    arms = schema.get("anyOf")
    if not arms or not all(_resolve(arm, definitions).get("type") == "object" for arm in arms):
        return None
    # MCP needs an object root; every arm is one, so saying so changes nothing it accepts.
    return {"type": "object", **schema}


def _close(schema: Any) -> None:
    """Closes every object schema that lists properties and says nothing of others (how
    pydantic renders a `TypedDict`), so an answer with a key its type lacks fails."""
    if isinstance(schema, list):
        for item in schema:
            _close(item)
        return
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)
    for key, value in schema.items():
        if key in ("properties", "$defs"):
            for part in value.values():
                _close(part)
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
            _close(value)


def _resolve(arm: Mapping[str, Any], definitions: Mapping[str, Any]) -> Mapping[str, Any]:
    reference = arm.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        found: Mapping[str, Any] = definitions.get(reference.removeprefix("#/$defs/"), {})
        return found
    return arm


def result_wire(
    result: ToolResult, returns: Any = None, limit: int | None = None
) -> dict[str, Any]:
    """Projects a tool result onto an MCP call result as wire JSON.

    A failure is `isError` with the message as its only text. A success whose value is a string
    is that string as plain text, so a file or a reply reaches the model as it reads rather
    than as a JSON literal of escapes; any other value is compact JSON text, plus the same
    value as structured content when it encodes to a JSON object; a
    tool that declares a structured return type `returns` has its value dumped through that
    type, so the structured content matches the advertised output schema. A value that cannot
    be encoded (a cycle, excessive depth, bytes that are not UTF-8, an unknown type) becomes an
    `isError` result that says so, since no faithful answer exists.

    With `limit`, a result whose JSON would be over `limit` bytes becomes an `isError` result
    naming the cap instead. The value is measured before anything is written, with parts it
    shares counted each time JSON would write them, so an answer far over the cap is refused
    without being built.
    """
    if not result["success"]:
        message = str(result.get("error", ""))
        return _over(limit) if limit is not None and len(message) > limit else _error(message)
    raw = result.get("value")
    try:
        if limit is not None and JsonSizer(_jsonable).measure(raw, limit) is None:
            return _over(limit)
        if returns is not None:
            value = _adapter(returns).dump_python(raw, mode="json")
        else:
            value = _jsonable(raw)
        if isinstance(value, str):
            value.encode()  # a lone surrogate cannot be sent, as text or as JSON
        text = value if isinstance(value, str) else to_json(value).decode()
    except (PydanticSerializationError, ValueError, TypeError, RecursionError) as error:
        return _error(f"tool result is not JSON-encodable: {_first_line(str(error))}")
    answer: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if isinstance(value, dict):
        answer["structuredContent"] = value
    if limit is not None and len(to_json(answer)) > limit:
        return _over(limit)
    return answer


def _jsonable(value: Any) -> Any:
    return to_jsonable_python(value, inf_nan_mode="null")


def _over(limit: int) -> dict[str, Any]:
    return _error(
        f"the tool's answer is over the server's answer cap of {limit} bytes of JSON "
        "(max_answer_bytes, serve --max-answer-bytes); ask for less"
    )


def result_to_mcp(result: ToolResult) -> Any:
    """Projects a tool result onto an MCP call result, as the installed SDK's `CallToolResult`:
    a failure is `isError` with its message as the only text, a success is a string as plain
    text, or else compact JSON text plus structured content when the value encodes to a JSON
    object."""
    return sdk.model("CallToolResult", result_wire(result))


def mcp_to_value(result: Any, name: str = "") -> Any:
    """Reads the value a remote MCP tool answered, or raises `RemoteToolError` for `isError`.

    Structured content wins. Otherwise a single text block is parsed as JSON, falling back to
    the text itself; any other content is returned as its list of wire-shaped blocks.
    """
    answer = result if isinstance(result, Mapping) else sdk.wire(result)
    content = list(answer.get("content") or [])
    if answer.get("isError"):
        texts = [block["text"] for block in content if block.get("type") == "text"]
        raise RemoteToolError(name, "\n".join(texts) or "remote tool failed without a message")
    if answer.get("structuredContent") is not None:
        return answer["structuredContent"]
    if len(content) == 1 and content[0].get("type") == "text":
        text = content[0]["text"]
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            return text
    return content


def _error(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
