"""The MCP annotations the built-in tools declare."""

from __future__ import annotations

from typing import Any

from orkestrel.tool import Tool, ToolHandler, ToolInterface

READS: dict[str, Any] = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
"""The hints of a tool that only computes: no side effects, the same answer twice, a closed
world."""

READS_STATE: dict[str, Any] = {"readOnlyHint": True, "openWorldHint": False}
"""The hints of a tool opened read-only over state that others may change."""

WRITES: dict[str, Any] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": False,
}
"""The hints of a tool that may overwrite or delete the state it manages."""


def annotate(
    tool: ToolInterface, hints: dict[str, Any], execute: ToolHandler | None = None
) -> ToolInterface:
    """Gives a tool MCP annotations, as a new `Tool` with the same definition that runs
    `execute`, the tool's own handler unless given."""
    return Tool(
        name=tool.name,
        description=tool.description,
        summary=tool.summary,
        parameters=tool.parameters,
        annotations=dict(hints),
        execute=tool.execute if execute is None else execute,
    )
