"""The examples the toolbox publishes are data a user passes to their own tools and to
`json.dumps` as they are, and stay read-only."""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import pytest

from orkestrel.contract import ParseError, create_contract
from orkestrel.tool import ToolManager
from orkestrel.toolbox import (
    WORKFLOW_TOOL_FLAT_EXAMPLE,
    WORKFLOW_TOOL_NESTED_EXAMPLE,
    WORKSPACE_TOOL_EXAMPLE,
    create_workflow_tool,
    create_workspace_tool,
    workflow_steps_shape,
)
from orkestrel.workflow import create_workflow_runner

pytestmark = pytest.mark.anyio

RELEASE = {"id": "release", "name": "Release", "phases": []}


async def run(tools: ToolManager, name: str, arguments: Any) -> Any:
    return await tools.execute({"id": "1", "name": name, "arguments": arguments})


async def test_workflow_examples_are_accepted_by_the_workflow_tool() -> None:
    tools = ToolManager()
    behaviors = {"compile": lambda _: None, "publish": lambda _: None}
    tools.add(create_workflow_tool(RELEASE, create_workflow_runner(), functions=behaviors))
    flat = await run(tools, "workflow", WORKFLOW_TOOL_FLAT_EXAMPLE)
    nested = await run(tools, "workflow", WORKFLOW_TOOL_NESTED_EXAMPLE)
    assert flat.get("error") is None
    assert nested.get("error") is None
    assert (flat["value"]["status"], nested["value"]["status"]) == ("completed", "completed")


async def test_workspace_example_is_accepted_by_the_workspace_tool() -> None:
    tools = ToolManager()
    tools.add(create_workspace_tool())
    result = await run(tools, "workspace", WORKSPACE_TOOL_EXAMPLE)
    read = await run(tools, "workspace", {"operation": "read", "path": "notes.txt"})
    assert result.get("error") is None
    assert read["value"] == "hello"


def test_examples_serialize_with_json_dumps_and_refuse_changes() -> None:
    for example in (
        WORKFLOW_TOOL_FLAT_EXAMPLE,
        WORKFLOW_TOOL_NESTED_EXAMPLE,
        WORKSPACE_TOOL_EXAMPLE,
    ):
        assert json.loads(json.dumps(example)) == example
    with pytest.raises(TypeError):
        WORKFLOW_TOOL_FLAT_EXAMPLE["steps"].append({"name": "x"})
    with pytest.raises(TypeError):
        WORKFLOW_TOOL_NESTED_EXAMPLE["phases"][0]["tasks"][0]["id"] = "x"


def test_non_dict_mapping_refused_by_a_contract_is_named_by_its_python_type() -> None:
    contract = create_contract(workflow_steps_shape)
    with pytest.raises(ParseError) as refused:
        contract.parse(MappingProxyType({"steps": []}))
    assert str(refused.value).endswith("<root>: expected object, received mappingproxy")
