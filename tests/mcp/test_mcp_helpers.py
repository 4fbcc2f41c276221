"""The projections between tool records and MCP types, including hostile values."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from orkestrel.mcp import RemoteToolError, mcp_to_value, result_to_mcp, tool_to_mcp
from orkestrel.mcp.helpers import tool_wire
from orkestrel.mcp.sdk import model
from orkestrel.tool import Tool, ToolResult
from support.mcp_client import wire

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


def only_text(result: dict[str, Any]) -> str:
    (block,) = result["content"]
    assert block["type"] == "text"
    return str(block["text"])


def projected(result: ToolResult) -> dict[str, Any]:
    """`result_to_mcp` as wire JSON, whichever SDK line built the model."""
    return wire(result_to_mcp(result))  # type: ignore[no-any-return]


def listed(tool: Tool) -> dict[str, Any]:
    """`tool_to_mcp` as wire JSON."""
    return wire(tool_to_mcp(tool))  # type: ignore[no-any-return]


def text_result(*texts: str, **fields: Any) -> Any:
    """An SDK `CallToolResult` of text blocks."""
    blocks = [{"type": "text", "text": item} for item in texts]
    return model("CallToolResult", {"content": blocks, **fields})


CYCLE: dict[str, Any] = {}
CYCLE["self"] = CYCLE


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_failure_is_an_error_result_with_the_message_alone() -> None:
    result = projected({"id": "1", "name": "t", "success": False, "error": "bad input"})
    assert (result.get("isError", False), only_text(result), result.get("structuredContent")) == (
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
        ("", ""),
        ("line\nbreak", "line\nbreak"),
        ([1, "a"], '[1,"a"]'),
        ((1, 2), "[1,2]"),
        (2.5, "2.5"),
        ("ünï", "ünï"),
    ],
)
def test_a_non_dict_success_is_json_text_or_plain_text_for_a_string_only(
    value: Any, text: str
) -> None:
    result = projected(success(value))
    assert (result.get("isError", False), only_text(result), result.get("structuredContent")) == (
        False,
        text,
        None,
    )


def test_a_dict_success_is_also_structured_content() -> None:
    value = {"b": [1, {"c": None}], "a": "x"}
    result = projected(success(value))
    assert only_text(result) == '{"b":[1,{"c":null}],"a":"x"}'
    assert result.get("structuredContent") == value


def test_models_dataclasses_and_known_types_encode_as_json() -> None:
    class Point(BaseModel):
        x: int
        when: date

    @dataclass
    class Pair:
        left: int
        right: set[int]

    model = projected(success(Point(x=1, when=date(2024, 2, 29))))
    assert model.get("structuredContent") == {"x": 1, "when": "2024-02-29"}
    pair = projected(success(Pair(1, {3})))
    assert pair.get("structuredContent") == {"left": 1, "right": [3]}
    keys = projected(success({1: "one", None: "none"}))
    assert keys.get("structuredContent") == {"1": "one", "None": "none"}


def test_non_finite_floats_become_null() -> None:
    result = projected(success({"nan": math.nan, "inf": [math.inf, -math.inf]}))
    assert json.loads(only_text(result)) == {"nan": None, "inf": [None, None]}
    assert result.get("structuredContent") == {"nan": None, "inf": [None, None]}


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
    result = projected(success(value))
    assert result.get("isError", False) is True
    assert only_text(result).startswith("tool result is not JSON-encodable: ")
    assert "\n" not in only_text(result)


def reads_as_json(value: Any) -> bool:
    try:
        json.loads(value)
    except ValueError:
        return False
    return True


@given(JSON.filter(lambda value: not (isinstance(value, str) and reads_as_json(value))))
def test_json_values_survive_the_round_trip(value: Any) -> None:
    assert mcp_to_value(result_to_mcp(success(value))) == value


@pytest.mark.parametrize("text", ["true", "12", '"quoted"', "null", '{"a": 1}'])
def test_a_string_answer_that_is_json_text_reads_back_as_that_json(text: str) -> None:
    """A string is sent as its plain text and the text block carries no type, so a wrapped
    call reads a string that is itself JSON text as that JSON (mcp.md, "Wrapping")."""
    assert mcp_to_value(result_to_mcp(success(text))) == json.loads(text)


def test_an_error_result_raises_the_remote_text() -> None:
    result = text_result("first", "second", isError=True)
    with pytest.raises(RemoteToolError) as caught:
        mcp_to_value(result, "remote")
    assert (str(caught.value), caught.value.tool) == ("first\nsecond", "remote")
    silent = {"content": [], "isError": True}
    with pytest.raises(RemoteToolError, match="remote tool failed without a message"):
        mcp_to_value(silent)


def test_structured_content_wins_over_text() -> None:
    result = text_result("a summary", structuredContent={"rows": 3})
    assert mcp_to_value(result) == {"rows": 3}


@pytest.mark.parametrize("text", ["plain words", "{not json", "[" * 100_000, ""])
def test_text_that_is_not_json_is_returned_as_is(text: str) -> None:
    assert mcp_to_value(text_result(text)) == text


def test_other_content_is_returned_as_wire_blocks() -> None:
    result = model(
        "CallToolResult",
        {
            "content": [
                {"type": "text", "text": "caption"},
                {"type": "image", "data": "aGk=", "mimeType": "image/png"},
            ]
        },
    )
    assert mcp_to_value(result) == [
        {"type": "text", "text": "caption"},
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
    ]
    assert mcp_to_value(model("CallToolResult", {"content": []})) == []


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
    entry = listed(full)
    assert entry == {
        "name": "find",
        "description": "Finds rows.",
        "inputSchema": schema,
        "annotations": {"readOnlyHint": True, "openWorldHint": False, "title": "Find"},
        "title": "Find",
    }
    bare = tool_to_mcp(Tool(name="bare", execute=lambda args: None))
    assert wire(bare) == {"name": "bare", "inputSchema": {"type": "object", "properties": {}}}
    schema_of_bare = bare.input_schema if hasattr(bare, "input_schema") else bare.inputSchema
    schema_of_bare["properties"]["leak"] = {}
    assert listed(Tool(name="again", execute=lambda args: None))["inputSchema"] == {
        "type": "object",
        "properties": {},
    }


def test_invalid_annotations_name_the_tool() -> None:
    tool = Tool(name="odd", annotations={"readOnlyHint": "perhaps"}, execute=lambda args: None)
    with pytest.raises(ValueError, match="tool 'odd': invalid MCP annotations"):
        tool_to_mcp(tool)


def test_a_schema_without_a_root_type_is_listed_as_an_object() -> None:
    union = {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    entry = listed(Tool(name="union", parameters=union, execute=lambda args: None))
    assert entry["inputSchema"] == {"type": "object", **union}
    assert union == {"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    kept = {"type": "object", "properties": {}}
    assert listed(Tool(name="kept", parameters=kept, execute=lambda a: 0))["inputSchema"] == kept


def test_a_schema_of_another_root_type_cannot_be_listed() -> None:
    tool = Tool(name="text", parameters={"type": "string"}, execute=lambda args: None)
    with pytest.raises(ValueError, match="tool 'text': MCP needs an object parameter schema"):
        tool_to_mcp(tool)


def test_a_strict_listing_is_the_strict_export_or_the_schema_as_it_is() -> None:
    free = {"type": "object", "properties": {"tags": {"type": "object"}, "n": {"type": "integer"}}}
    entry = tool_wire(Tool(name="tagged", parameters=free, execute=lambda a: 0), strict=True)
    assert entry["inputSchema"] == {
        "type": "object",
        "properties": {
            # The listing is lean: the JSON text's schema is one describe call away.
            "tags": {"type": ["string", "null"], "description": "JSON text."},
            "n": {"type": ["integer", "null"]},
        },
        "required": ["tags", "n"],
        "additionalProperties": False,
    }
    assert free["properties"]["tags"] == {"type": "object"}
    anything = {"type": "object", "properties": {"value": {}}}
    kept = tool_wire(Tool(name="any", parameters=anything, execute=lambda a: 0), strict=True)
    assert kept["inputSchema"] == anything
    assert (
        tool_wire(Tool(name="plain", parameters=free, execute=lambda a: 0))["inputSchema"] == free
    )
