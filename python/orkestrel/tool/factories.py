"""The constructor-free way to reach `Tool` and `ToolManager`."""

from __future__ import annotations

from typing import Unpack

from orkestrel.tool.base import Tool
from orkestrel.tool.manager import ToolManager
from orkestrel.tool.types import ToolInterface, ToolManagerInterface, ToolOptions


def create_tool(**options: Unpack[ToolOptions]) -> ToolInterface:
    """Creates an executable tool bound to the supplied handler, returned as a `ToolInterface`
    so a call site holds the published contract rather than the `Tool` class. `returns` is the
    type of every value the handler returns, when it has one shape (see `Tool`). `operations`
    holds each operation's exact call schema for `describe(name, operation)`. `task=True` has
    `orkestrel serve` run its calls as MCP tasks for clients that support them (see `Tool`).
    """
    return Tool(**options)


def create_tool_manager() -> ToolManagerInterface:
    """Creates an empty registry that advertises definitions and executes calls with per-call
    error isolation, returned as a `ToolManagerInterface` so a caller holds the published
    contract rather than the `ToolManager` class.
    """
    return ToolManager()
