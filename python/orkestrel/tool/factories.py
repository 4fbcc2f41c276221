"""The constructor-free way to reach `Tool` and `ToolManager`."""

from __future__ import annotations

from typing import Any

from orkestrel.tool.base import Tool
from orkestrel.tool.manager import ToolManager
from orkestrel.tool.types import ToolHandler, ToolInterface, ToolManagerInterface


def create_tool(
    *,
    name: str,
    execute: ToolHandler,
    description: str | None = None,
    summary: str | None = None,
    parameters: dict[str, Any] | None = None,
    annotations: dict[str, Any] | None = None,
    returns: Any = None,
    operations: dict[str, dict[str, Any]] | None = None,
    task: bool = False,
) -> ToolInterface:
    """Creates an executable tool bound to the supplied handler, returned as a `ToolInterface`
    so a call site holds the published contract rather than the `Tool` class. `returns` is the
    type of every value the handler returns, when it has one shape (see `Tool`). `operations`
    holds each operation's exact call schema for `describe(name, operation)`. `task=True` has
    `orkestrel serve` run its calls as MCP tasks for clients that support them (see `Tool`).
    """
    return Tool(
        name=name,
        execute=execute,
        description=description,
        summary=summary,
        parameters=parameters,
        annotations=annotations,
        returns=returns,
        operations=operations,
        task=task,
    )


def create_tool_manager() -> ToolManagerInterface:
    """Creates an empty registry that advertises definitions and executes calls with per-call
    error isolation, returned as a `ToolManagerInterface` so a caller holds the published
    contract rather than the `ToolManager` class.
    """
    return ToolManager()
