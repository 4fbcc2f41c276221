"""The describe tool: lean advertisement expanded on demand."""

from __future__ import annotations

import pytest

from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import (
    DESCRIBE_TOOL_DESCRIPTION,
    DESCRIBE_TOOL_NAME,
    ToolboxError,
    create_describe_tool,
    create_infer_tool,
)

pytestmark = pytest.mark.anyio


def registry() -> ToolManager:
    tools = ToolManager()
    tools.add(create_infer_tool())
    tools.add(Tool(name="plain", summary="Only a summary.", execute=lambda args: None))
    tools.add(Tool(name="bare", execute=lambda args: None))
    tools.add(create_describe_tool(tools))
    return tools


async def test_lean_advertisement_and_on_demand_expansion() -> None:
    tools = registry()
    advertised = {item["name"]: item.get("description") for item in tools.definitions()}
    infer = tools.tool("infer")
    assert infer is not None
    assert advertised["infer"] == infer.summary
    full = await tools.execute({"id": "d1", "name": "describe", "arguments": {"name": "infer"}})
    assert full["success"] is True
    assert full["value"] == infer.description  # type: ignore[typeddict-item]
    assert full["value"] != advertised["infer"]  # type: ignore[typeddict-item]


async def test_falls_back_to_the_summary_then_a_placeholder() -> None:
    tool = registry().tool("describe")
    assert tool is not None
    assert await tool.execute({"name": "plain"}) == "Only a summary."
    assert await tool.execute({"name": "bare"}) == "<no description>"
    assert await tool.execute({"name": DESCRIBE_TOOL_NAME}) == DESCRIBE_TOOL_DESCRIPTION


async def test_describes_tools_added_later() -> None:
    tools = registry()
    tools.add(Tool(name="late", description="Added after describe.", execute=lambda args: None))
    tool = tools.tool("describe")
    assert tool is not None
    assert await tool.execute({"name": "late"}) == "Added after describe."


async def test_unknown_tool_is_a_typed_error() -> None:
    tool = registry().tool("describe")
    assert tool is not None
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"name": "ghost"})
    assert (caught.value.code, str(caught.value), caught.value.context) == (
        "TOOL",
        "unknown tool 'ghost'",
        {"name": "ghost"},
    )


@pytest.mark.parametrize(
    ("arguments", "detail"),
    [
        ({}, "name: missing string"),
        ({"name": ""}, 'name: min 1 failed for ""'),
        ({"name": None}, "name: expected string, received null"),
        ({"name": ["infer"]}, "name: expected string, received array"),
        ([], "<root>: expected object, received array"),
        ("infer", '<root>: expected object, received "infer"'),
        (None, "<root>: expected object, received null"),
    ],
)
async def test_malformed_calls_are_typed_errors_and_flattened_results(
    arguments: object, detail: str
) -> None:
    tools = registry()
    tool = tools.tool("describe")
    assert tool is not None
    with pytest.raises(ToolboxError, match="malformed describe call") as caught:
        await tool.execute(arguments)  # type: ignore[arg-type]
    assert caught.value.code == "TOOL"
    result = await tools.execute({"id": "1", "name": "describe", "arguments": arguments})  # type: ignore[typeddict-item]
    assert result == {
        "id": "1",
        "name": "describe",
        "success": False,
        "error": f"malformed describe call: {detail}",
    }


async def test_a_number_name_is_coerced_and_an_unknown_key_refused() -> None:
    tools = registry()
    tools.add(Tool(name="7", description="Seven.", execute=lambda args: None))
    tool = tools.tool("describe")
    assert tool is not None
    assert await tool.execute({"name": 7}) == "Seven."
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"name": 7, "nmae": "x"})
    assert (caught.value.code, str(caught.value)) == (
        "TOOL",
        'malformed describe call: unknown argument "nmae" (did you mean name?)',
    )


def test_parameters_come_from_the_contract() -> None:
    tool = create_describe_tool(ToolManager())
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "operation": {"type": "string", "minLength": 1},
        },
        "required": ["name"],
        "additionalProperties": False,
    }
