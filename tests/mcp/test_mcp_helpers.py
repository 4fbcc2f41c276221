"""The projections between tool records and MCP types, including hostile values."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import date
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from orkestrel.mcp import RemoteToolError, mcp_to_value, result_to_mcp, tool_to_mcp
from orkestrel.tool import Tool, ToolResult

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def success(value: Any) -> ToolResult:
    return {"id": "1", "name": "t", "success": True, "value": value}


def only_text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


CYCLE: dict[str, Any] = {}
CYCLE["self"] = CYCLE


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_failure_is_an_error_result_with_the_message_alone() -> None:
    result = result_to_mcp({"id": "1", "name": "t", "success": False, "error": "bad input"})
    assert (result.is_error, only_text(result), result.structured_content) == (
        True,
        "bad input",
        None,
    )


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (0, "0"),
        (False, "false"),
        ("", '""'),
        ("line\nbreak", '"line\\nbreak"'),
        ([1, "a"], '[1,"a"]'),
        ((1, 2), "[1,2]"),
        (2.5, "2.5"),
        ("ünï", '"ünï"'),
    ],
)
def test_a_non_dict_success_is_compact_json_text_only(value: Any, text: str) -> None:
    result = result_to_mcp(success(value))
    assert (result.is_error, only_text(result), result.structured_content) == (False, text, None)


def test_a_dict_success_is_also_structured_content() -> None:
    value = {"b": [1, {"c": None}], "a": "x"}
    result = result_to_mcp(success(value))
    assert only_text(result) == '{"b":[1,{"c":null}],"a":"x"}'
    assert result.structured_content == value


def test_models_dataclasses_and_known_types_encode_as_json() -> None:
    class Point(BaseModel):
        x: int
        when: date

    @dataclass
    class Pair:
        left: int
        right: set[int]

    model = result_to_mcp(success(Point(x=1, when=date(2024, 2, 29))))
    assert model.structured_content == {"x": 1, "when": "2024-02-29"}
    pair = result_to_mcp(success(Pair(1, {3})))
    assert pair.structured_content == {"left": 1, "right": [3]}
    keys = result_to_mcp(success({1: "one", None: "none"}))
    assert keys.structured_content == {"1": "one", "None": "none"}


def test_non_finite_floats_become_null() -> None:
    result = result_to_mcp(success({"nan": math.nan, "inf": [math.inf, -math.inf]}))
    assert json.loads(only_text(result)) == {"nan": None, "inf": [None, None]}
    assert result.structured_content == {"nan": None, "inf": [None, None]}


@pytest.mark.parametrize(
    "value",
    [
        nested(100_000),
        b"\xff\xfe",
        "\ud800",
        {"k": object()},
        CYCLE,
    ],
    ids=["deep", "bad-utf8-bytes", "lone-surrogate", "unknown-type", "cycle"],
)
def test_unencodable_values_become_one_line_error_results(value: Any) -> None:
    result = result_to_mcp(success(value))
    assert result.is_error is True
    assert only_text(result).startswith("tool result is not JSON-encodable: ")
    assert "\n" not in only_text(result)


@given(JSON)
def test_json_values_survive_the_round_trip(value: Any) -> None:
    assert mcp_to_value(result_to_mcp(success(value))) == value


def test_an_error_result_raises_the_remote_text() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(text="first"), types.TextContent(text="second")], is_error=True
    )
    with pytest.raises(RemoteToolError) as caught:
        mcp_to_value(result, "remote")
    assert (str(caught.value), caught.value.tool) == ("first\nsecond", "remote")
    silent = types.CallToolResult(content=[], is_error=True)
    with pytest.raises(RemoteToolError, match="remote tool failed without a message"):
        mcp_to_value(silent)


def test_structured_content_wins_over_text() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(text="a summary")], structured_content={"rows": 3}
    )
    assert mcp_to_value(result) == {"rows": 3}


@pytest.mark.parametrize("text", ["plain words", "{not json", "[" * 100_000, ""])
def test_text_that_is_not_json_is_returned_as_is(text: str) -> None:
    assert mcp_to_value(types.CallToolResult(content=[types.TextContent(text=text)])) == text


def test_other_content_is_returned_as_wire_blocks() -> None:
    result = types.CallToolResult(
        content=[
            types.TextContent(text="caption"),
            types.ImageContent(data="aGk=", mime_type="image/png"),
        ]
    )
    assert mcp_to_value(result) == [
        {"type": "text", "text": "caption"},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
    ]
    assert mcp_to_value(types.CallToolResult(content=[])) == []


def test_listing_entry_follows_the_advertised_definition() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    full = Tool(
        name="find",
        description="Finds rows matching a query, slowly.",
        summary="Finds rows.",
        parameters=schema,
        annotations={"readOnlyHint": True, "openWorldHint": False, "title": "Find"},
        execute=lambda args: None,
    )
    entry = tool_to_mcp(full)
    assert (entry.name, entry.description, entry.input_schema) == ("find", "Finds rows.", schema)
    assert entry.annotations == types.ToolAnnotations(
        read_only_hint=True, open_world_hint=False, title="Find"
    )
    bare = tool_to_mcp(Tool(name="bare", execute=lambda args: None))
    assert (bare.description, bare.annotations) == (None, None)
    assert bare.input_schema == {"type": "object", "properties": {}}
    bare.input_schema["properties"]["leak"] = {}
    assert tool_to_mcp(Tool(name="again", execute=lambda args: None)).input_schema == {
        "type": "object",
        "properties": {},
    }


def test_invalid_annotations_name_the_tool() -> None:
    tool = Tool(name="odd", annotations={"readOnlyHint": "perhaps"}, execute=lambda args: None)
    with pytest.raises(ValueError, match="tool 'odd': invalid MCP annotations"):
        tool_to_mcp(tool)


def test_a_schema_without_a_root_type_is_listed_as_an_object() -> None:
    union = {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    entry = tool_to_mcp(Tool(name="union", parameters=union, execute=lambda args: None))
    assert entry.input_schema == {"type": "object", **union}
    assert union == {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    kept = {"type": "object", "properties": {}}
    assert tool_to_mcp(Tool(name="kept", parameters=kept, execute=lambda a: 0)).input_schema == kept


def test_a_schema_of_another_root_type_cannot_be_listed() -> None:
    tool = Tool(name="text", parameters={"type": "string"}, execute=lambda args: None)
    with pytest.raises(ValueError, match="tool 'text': MCP needs an object parameter schema"):
        tool_to_mcp(tool)
