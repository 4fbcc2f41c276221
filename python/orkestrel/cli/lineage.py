"""The lineage the served workflow and agent tools hand each other, so that a workflow step that
delegates to the served model, and the workflows that model runs, stay one bounded chain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from orkestrel.cli.hints import annotate
from orkestrel.tool import ToolInterface
from orkestrel.toolbox import WorkflowLineage

if TYPE_CHECKING:
    from orkestrel.agent import AgentBudget


class CallTree:
    """Represents what every served call nested under one top-level call shares: the budget of
    agents and model requests the served agent tool spends, made on its first delegation."""

    __slots__ = ("budget",)

    def __init__(self) -> None:
        self.budget: AgentBudget | None = None


@dataclass(frozen=True, slots=True)
class ServedLineage:
    """Represents the caller context one served tool calls another with: the workflow lineage
    the call runs under. Only the served tools assert it; a call from an MCP client or a model
    never carries one, and starts a fresh chain (and a fresh `CallTree`). `depth` counts the
    sub-agents above the call: 0 for a workflow the client started, 1 for one a sub-agent of
    the client's call runs."""

    lineage: WorkflowLineage
    tree: CallTree = field(default_factory=CallTree)
    depth: int = 0


def lineage_of(caller: Any) -> WorkflowLineage:
    """The lineage a served tool was called under: its `ServedLineage`, else the empty root."""
    return caller.lineage if isinstance(caller, ServedLineage) else ()


def tree_of(caller: Any) -> CallTree:
    """The call tree a served tool was called in: its `ServedLineage`'s, else a fresh one."""
    return caller.tree if isinstance(caller, ServedLineage) else CallTree()


def depth_of(caller: Any) -> int:
    """How many sub-agents sit above a served call: its `ServedLineage`'s depth, else 0."""
    return caller.depth if isinstance(caller, ServedLineage) else 0


def under(
    tool: ToolInterface, lineage: WorkflowLineage, tree: CallTree, depth: int = 0
) -> ToolInterface:
    """The same tool, called with `lineage`, `tree` and `depth` as its caller context whoever
    calls it."""
    context = ServedLineage(lineage, tree, depth)

    async def execute(args: Any) -> Any:
        return await tool.execute(args, context)

    return annotate(tool, execute=execute)
