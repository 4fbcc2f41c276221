"""Factories build working instances of the classes."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.tool import Tool, ToolManager, create_tool, create_tool_manager


def test_create_tool_builds_a_tool() -> None:
    tool = create_tool(name="echo", execute=lambda args: args, summary="Echo.")
    assert isinstance(tool, Tool)
    assert (tool.name, tool.summary, tool.description, tool.parameters) == (
        "echo",
        "Echo.",
        None,
        None,
    )


def test_create_tool_manager_builds_an_empty_registry() -> None:
    tools = create_tool_manager()
    assert isinstance(tools, ToolManager)
    assert tools.count == 0


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_factories_work_together() -> None:
    def fail(args: dict[str, Any]) -> None:
        raise RuntimeError("factory failed")

    tools = create_tool_manager()
    tools.add(
        [create_tool(name="ok", execute=lambda args: 1), create_tool(name="bad", execute=fail)]
    )
    results = await tools.execute(
        [
            {"id": "1", "name": "ok", "arguments": {}},
            {"id": "2", "name": "bad", "arguments": {}},
            {"id": "3", "name": "missing", "arguments": {}},
        ]
    )
    assert [result["success"] for result in results] == [True, False, False]
    assert results[1] == {"id": "2", "name": "bad", "success": False, "error": "factory failed"}
    assert results[2]["error"] == "tool not found: missing"  # type: ignore[typeddict-item]


def test_a_tool_opts_in_to_tasks_with_a_bool_only() -> None:
    from orkestrel.tool import tool

    @tool(task=True)
    def slow(seconds: float) -> float:
        """Waits."""
        return seconds

    plain = create_tool(name="plain", execute=lambda args: args)
    opted = create_tool(name="long", execute=lambda args: args, task=True)
    assert (getattr(plain, "task", None), getattr(opted, "task", None), slow.task) == (
        False,
        True,
        True,
    )
    with pytest.raises(TypeError) as refused:
        create_tool(name="long", execute=lambda args: args, task="yes")  # type: ignore[arg-type]
    assert str(refused.value) == "Tool 'long': task must be True or False, got 'yes'"
