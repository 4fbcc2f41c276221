"""Projections between the tool runtime's records and the MCP SDK's types."""

from __future__ import annotations

import copy
import json
from typing import Any

import mcp_types as types
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python

from orkestrel._errors import raise_alone as raise_alone
from orkestrel.mcp.constants import EMPTY_INPUT_SCHEMA
from orkestrel.mcp.errors import RemoteToolError
from orkestrel.tool import ToolInterface, ToolResult, tool_to_definition


def tool_to_mcp(tool: ToolInterface) -> types.Tool:
    """Projects a tool onto its MCP listing entry: the advertised definition, with the tool's
    annotations as MCP tool annotations.

    A tool without parameters lists an empty object schema, and a schema with no root `type`
    (a top-level `anyOf` union, say) is listed with `"type": "object"` added, since MCP
    arguments are always an object and clients require the root type. Raises `ValueError`
    naming the tool when its schema's root type is another type, or its annotations are not
    valid MCP tool annotations.
    """
    definition = tool_to_definition(tool)
    parameters = definition.get("parameters")
    if parameters is None:
        schema = copy.deepcopy(EMPTY_INPUT_SCHEMA)
    elif "type" not in parameters:
        schema = {"type": "object", **parameters}
    elif parameters["type"] == "object":
        schema = parameters
    else:
        raise ValueError(
            f"tool {tool.name!r}: MCP needs an object parameter schema, "
            f"not type {parameters['type']!r}"
        )
    annotations = getattr(tool, "annotations", None)
    try:
        hints = None if annotations is None else types.ToolAnnotations.model_validate(annotations)
    except ValidationError as error:
        raise ValueError(f"tool {tool.name!r}: invalid MCP annotations: {error}") from None
    return types.Tool(
        name=definition["name"],
        description=definition.get("description"),
        input_schema=schema,
        annotations=hints,
    )


def result_to_mcp(result: ToolResult) -> types.CallToolResult:
    """Projects a tool result onto an MCP call result.

    A failure is `isError` with the message as its only text. A success is its value as compact
    JSON text, plus the same value as structured content when it encodes to a JSON object. A
    value that cannot be encoded (a cycle, excessive depth, bytes that are not UTF-8, an unknown
    type) becomes an `isError` result that says so, since no faithful answer exists.
    """
    if not result["success"]:
        return _error(result["error"])
    try:
        value = to_jsonable_python(result["value"], inf_nan_mode="null")
        text = to_json(value).decode()
    except (PydanticSerializationError, ValueError, TypeError) as error:
        return _error(f"tool result is not JSON-encodable: {_first_line(str(error))}")
    structured = value if isinstance(value, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured, is_error=False
    )


def mcp_to_value(result: types.CallToolResult, name: str = "") -> Any:
    """Reads the value a remote MCP tool answered, or raises `RemoteToolError` for `isError`.

    Structured content wins. Otherwise a single text block is parsed as JSON, falling back to
    the text itself; any other content is returned as its list of wire-shaped blocks.
    """
    if result.is_error:
        texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
        raise RemoteToolError(name, "\n".join(texts) or "remote tool failed without a message")
    if result.structured_content is not None:
        return result.structured_content
    if len(result.content) == 1 and isinstance(result.content[0], types.TextContent):
        text = result.content[0].text
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            return text
    return [
        block.model_dump(by_alias=True, mode="json", exclude_none=True) for block in result.content
    ]


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
