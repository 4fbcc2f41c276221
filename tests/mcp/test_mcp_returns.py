"""`Tool(returns=)`: the declared type of a plain handler's answers becomes the tool's MCP
`outputSchema`, each `TypedDict` closed and a union of objects rooted at an object; a type with
no JSON object schema stops the listing with an error naming the tool."""

from __future__ import annotations

from typing import Any, NotRequired

import pytest
from typing_extensions import TypedDict

from orkestrel.cli.hints import annotate
from orkestrel.mcp.helpers import tool_wire
from orkestrel.tool import Tool, create_tool


class Done(TypedDict):
    status: str
    count: NotRequired[int]


class Page(TypedDict):
    run: str
    rows: list[Done]


def build(returns: Any) -> Tool:
    return Tool(name="t", execute=lambda args: {"status": "ok"}, returns=returns)


def test_a_typeddict_is_listed_closed() -> None:
    schema = tool_wire(build(Done))["outputSchema"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["status"]
    assert set(schema["properties"]) == {"status", "count"}


def test_a_union_of_objects_is_rooted_at_an_object_and_closed_throughout() -> None:
    schema = tool_wire(build(Done | Page))["outputSchema"]
    assert schema["type"] == "object"
    assert [arm["$ref"] for arm in schema["anyOf"]] == ["#/$defs/Done", "#/$defs/Page"]
    assert all(part["additionalProperties"] is False for part in schema["$defs"].values())


@pytest.mark.parametrize("returns", [str, list[Done], Done | str])
def test_a_type_without_an_object_schema_stops_the_listing(returns: Any) -> None:
    with pytest.raises(ValueError, match="tool 't': its returns type has no JSON object schema"):
        tool_wire(build(returns))


def test_no_returns_lists_no_output_schema_and_rewrapping_keeps_it() -> None:
    assert "outputSchema" not in tool_wire(build(None))
    made = create_tool(name="t", execute=lambda args: {"status": "ok"}, returns=Done)
    assert (
        tool_wire(annotate(made, {"readOnlyHint": True}))["outputSchema"]
        == tool_wire(build(Done))["outputSchema"]
    )
