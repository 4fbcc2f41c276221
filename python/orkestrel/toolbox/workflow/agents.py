"""The agent workflow adapter: a live agent as a workflow function, and its guard."""

from __future__ import annotations

from typing import TYPE_CHECKING, Unpack

from orkestrel.toolbox.workflow.agent_function import AgentFunction, is_agent_function
from orkestrel.toolbox.workflow.factories import create_workflow_tool
from orkestrel.toolbox.workflow.types import AgentFunctionOptions

if TYPE_CHECKING:
    from orkestrel.agent import AgentInterface

__all__ = ["create_agent_function", "is_agent_function"]


def create_agent_function(
    agent: AgentInterface, **options: Unpack[AgentFunctionOptions]
) -> AgentFunction:
    """Wraps a live agent as a workflow function that runs it to a settled result per task and
    carries immutable lineage metadata for toolbox composition.

    `lineage` is the chain the agent runs under and must be empty or end with a workflow tag,
    else `ToolboxError` (`TOOL`). With a `runner`, each run first binds a `workflow` tool onto
    the agent for nested runs, composed from `functions`, `agents` and `store` for the lineage
    extended by the agent's tag. The answer is `agent_result_to_json` of the settled result; a
    cancelled run answers its partial result, and the agent's and provider's errors pass through.
    """
    return AgentFunction(agent, tool=create_workflow_tool, **options)
