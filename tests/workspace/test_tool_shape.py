"""The workspace tool's advertisement: schema compiled from `workspace_tool_shape`, name, summary,
description and example.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from orkestrel.contract import ParseError, create_contract
from orkestrel.tool import ToolManager
from orkestrel.tool.flatten import flatten_parameters
from orkestrel.toolbox import (
    WORKSPACE_TOOL_DESCRIPTION,
    WORKSPACE_TOOL_EXAMPLE,
    WORKSPACE_TOOL_NAME,
    WORKSPACE_TOOL_SUMMARY,
    create_workspace_tool,
    workspace_tool_shape,
)

NAMES = "read list has search replace write splice prepend append move remove workspaces switch"
OPERATIONS = NAMES.split(" ")

VALID: list[dict[str, Any]] = [
    {"operation": "read", "path": "a"},
    {"operation": "list"},
    {"operation": "has", "path": "a"},
    {"operation": "search", "query": "q"},
    {"operation": "search", "query": "q", "regex": True, "sensitive": False, "limit": 3},
    {"operation": "replace", "query": "q", "replacement": "r"},
    {"operation": "write", "path": "a", "content": ""},
    {
        "operation": "splice",
        "path": "a",
        "content": "",
        "fromLine": 1,
        "fromColumn": 1,
        "toLine": 2,
        "toColumn": 9,
    },
    {"operation": "prepend", "path": "a", "content": "x"},
    {"operation": "append", "path": "a", "content": "x"},
    {"operation": "move", "from": "a", "to": "b"},
    {"operation": "remove", "path": "a"},
    {"operation": "workspaces"},
    {"operation": "switch", "id": "w"},
]


def test_parameters_are_the_compiled_shape() -> None:
    tool = create_workspace_tool()
    schema = create_contract(workspace_tool_shape).schema
    assert tool.parameters == flatten_parameters(schema)
    assert tool.parameters["properties"]["operation"]["enum"] == list(OPERATIONS)
    arms = schema["anyOf"]
    assert [arm["properties"]["operation"]["enum"] for arm in arms] == [[op] for op in OPERATIONS]
    for arm in arms:
        assert arm["type"] == "object"
        assert arm["additionalProperties"] is False
        assert next(iter(arm["properties"])) == "operation"
        # Each operation says what it does; a field is described only where its name does not.
        assert arm["properties"]["operation"]["description"]
    splice = arms[OPERATIONS.index("splice")]
    for field in ("fromLine", "fromColumn", "toLine", "toColumn"):
        described = splice["properties"][field]
        assert {key: described[key] for key in ("type", "minimum")} == {
            "type": "integer",
            "minimum": 1,
        }
        assert set(described) <= {"type", "minimum", "description"}
    search = arms[OPERATIONS.index("search")]
    assert search["required"] == ["operation", "query"]
    assert search["properties"]["limit"]["minimum"] == 1


@pytest.mark.parametrize("value", VALID, ids=[json.dumps(v)[:40] for v in VALID])
def test_every_operation_parses_and_round_trips(value: dict[str, Any]) -> None:
    contract = create_contract(workspace_tool_shape)
    assert contract.is_valid(value)
    assert contract.parse({**value, "unknown": 1}) == value


@pytest.mark.parametrize(
    "value",
    [
        {
            "operation": "splice",
            "path": "a",
            "content": "",
            "fromLine": 0,
            "fromColumn": 1,
            "toLine": 1,
            "toColumn": 1,
        },
        {"operation": "search", "query": "q", "limit": 0},
        {"operation": "move", "from": "a"},
        {"operation": "kind", "path": "a"},
        {"kind": "read", "path": "a"},
    ],
)
def test_malformed_operations_do_not_parse(value: dict[str, Any]) -> None:
    with pytest.raises(ParseError):
        create_contract(workspace_tool_shape).parse(value)


def test_name_summary_description_and_example() -> None:
    tool = create_workspace_tool()
    assert (tool.name, tool.summary, tool.description) == (
        WORKSPACE_TOOL_NAME,
        WORKSPACE_TOOL_SUMMARY,
        WORKSPACE_TOOL_DESCRIPTION,
    )
    assert WORKSPACE_TOOL_NAME == "workspace"
    assert dict(WORKSPACE_TOOL_EXAMPLE) == {
        "operation": "write",
        "path": "notes.txt",
        "content": "hello",
    }
    assert create_contract(workspace_tool_shape).is_valid(dict(WORKSPACE_TOOL_EXAMPLE))
    assert (
        json.dumps(dict(WORKSPACE_TOOL_EXAMPLE), separators=(",", ":"))
        in WORKSPACE_TOOL_DESCRIPTION
    )
    assert "describe('workspace')" in WORKSPACE_TOOL_SUMMARY
    assert all(
        f"- {op} " in WORKSPACE_TOOL_DESCRIPTION or f"{op} {{" in WORKSPACE_TOOL_DESCRIPTION
        for op in OPERATIONS
    )
    with pytest.raises(TypeError):
        WORKSPACE_TOOL_EXAMPLE["path"] = "x"  # type: ignore[index]


def test_name_and_description_can_be_overridden_but_not_the_summary() -> None:
    tool = create_workspace_tool(name="files", description="Edit files.")
    assert (tool.name, tool.description, tool.summary) == (
        "files",
        "Edit files.",
        WORKSPACE_TOOL_SUMMARY.replace("describe('workspace')", "describe('files')"),
    )
    tools = ToolManager()
    tools.add(tool)
    assert tools.definitions() == [
        {"name": "files", "description": tool.summary, "parameters": tool.parameters}
    ]
