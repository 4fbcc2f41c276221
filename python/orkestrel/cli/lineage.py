"""The lineage the served workflow and agent tools hand each other, so that a workflow step that
delegates to the served model, and the workflows that model runs, stay one bounded chain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from orkestrel.cli.hints import annotate
from orkestrel.tool import ToolInterface
from orkestrel.toolbox import WorkflowLineage


@dataclass(frozen=True, slots=True)
class ServedLineage:
    """Represents the caller context one served tool calls another with: the workflow lineage
    the call runs under. Only the served tools assert it; a call from an MCP client or a model
    never carries one, and starts a fresh chain."""

    lineage: WorkflowLineage


def lineage_of(caller: Any) -> WorkflowLineage:
    """The lineage a served tool was called under: its `ServedLineage`, else the empty root."""
    return caller.lineage if isinstance(caller, ServedLineage) else ()


def under(tool: ToolInterface, lineage: WorkflowLineage) -> ToolInterface:
    """The same tool, called with `lineage` as its caller context whoever calls it."""
    context = ServedLineage(lineage)

    async def execute(args: Any) -> Any:
        return await tool.execute(args, context)

    return annotate(tool, execute=execute)
