"""The read-only registry of opaque functions and raw agents, composed with the workflow tool
factory passed in, below both the tool and the public `create_workflow_functions`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.agent_function import AgentFunction, is_agent_function
from orkestrel.toolbox.workflow.helpers import is_live_agent, snapshot_registry
from orkestrel.toolbox.workflow.lineage import WORKFLOW_TAG, normalize_lineage
from orkestrel.toolbox.workflow.types import WorkflowAgents, WorkflowLineage, WorkflowToolFactory
from orkestrel.workflow import (
    WorkflowFunction,
    WorkflowFunctions,
    WorkflowRunnerInterface,
    WorkflowStoreInterface,
)


def compose_workflow_functions(
    runner: WorkflowRunnerInterface,
    *,
    lineage: WorkflowLineage | None = None,
    functions: WorkflowFunctions | None = None,
    agents: WorkflowAgents | None = None,
    store: WorkflowStoreInterface | None = None,
    tool: WorkflowToolFactory,
) -> Mapping[str, WorkflowFunction]:
    """`create_workflow_functions` with the workflow tool factory each agent function binds
    passed in as `tool`: `create_workflow_tool` composes registries through this function, so it
    cannot be imported here."""
    current = normalize_lineage(lineage or ())
    if current and not current[-1].startswith(WORKFLOW_TAG):
        raise ToolboxError(
            "TOOL",
            "workflow functions lineage must end with a workflow tag",
            {"lineage": list(current)},
        )
    leaves = snapshot_registry("functions", functions)
    crew = snapshot_registry("agents", agents)
    registry: dict[str, WorkflowFunction] = {}
    for name, function in leaves.items():
        if is_agent_function(function):
            raise ToolboxError(
                "TOOL",
                f"agent function '{name}' must be supplied through agents",
                {"function": name},
            )
        if is_live_agent(function):
            raise ToolboxError(
                "TOOL",
                f"workflow function '{name}' is an agent; supply it through agents",
                {"function": name},
            )
        if not callable(function):
            raise ToolboxError(
                "TOOL", f"workflow function '{name}' is not callable", {"function": name}
            )
        registry[name] = function
    for name, agent in crew.items():
        if name in registry:
            raise ToolboxError(
                "TOOL", f"workflow function '{name}' collides with an agent", {"function": name}
            )
        if not is_live_agent(agent):
            raise ToolboxError(
                "TOOL",
                f"workflow agent '{name}' is not an agent (it needs an id, a status, a context "
                "and generate)",
                {"agent": name},
            )
        registry[name] = AgentFunction(
            agent,
            runner=runner,
            lineage=current,
            functions=leaves,
            agents=crew,
            store=store,
            tool=tool,
        )
    return MappingProxyType(registry)
