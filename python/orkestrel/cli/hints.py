"""Re-wrapping a toolbox tool with another handler or other MCP annotations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel.tool import Tool, ToolHandler, ToolInterface


def annotate(
    tool: ToolInterface, hints: Mapping[str, Any] | None = None, execute: ToolHandler | None = None
) -> ToolInterface:
    """Returns a new `Tool` with the same definition that runs `execute` (the tool's own handler
    unless given) and carries `hints` as its MCP annotations (the tool's own unless given; its
    own `title` is kept either way), the declared type of what it returns, and its `operations`
    for `describe`."""
    own = tool.annotations or {}
    titled = {"title": own["title"]} if "title" in own else {}
    return Tool(
        name=tool.name,
        description=tool.description,
        summary=tool.summary,
        parameters=tool.parameters,
        annotations={**hints, **titled} if hints is not None else tool.annotations,
        execute=tool.execute if execute is None else execute,
        returns=getattr(tool, "returns", None),
        operations=getattr(tool, "operations", None),
    )
