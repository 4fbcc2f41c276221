"""The seam the agent adapter plugs into.

`create_workflow_functions` calls exactly these two functions for agents and nothing else, so
the adapter (`create_agent_function`, `AgentFunction`, `is_agent_function`, built with
`orkestrel.agent`) replaces their bodies without reshaping the registry: `is_agent_adapter`
becomes `is_agent_function`, and `adapt_agent` returns `create_agent_function(agent,
runner=runner, lineage=lineage, functions=functions, agents=agents, store=store)`. Until then a
raw agent is refused with `TOOL` before anything runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.types import WorkflowAgent, WorkflowLineage
from orkestrel.workflow import (
    WorkflowFunction,
    WorkflowRunnerInterface,
    WorkflowStoreInterface,
)


def is_agent_adapter(value: object) -> bool:
    """Whether `value` is a pre-built agent adapter, which the opaque `functions` channel
    refuses because agents must be rebuilt for each exact lineage.

    No adapter class exists before the agent adapter lands, so nothing is one yet.
    """
    return False


def adapt_agent(
    name: str,
    agent: WorkflowAgent,
    *,
    runner: WorkflowRunnerInterface,
    lineage: WorkflowLineage,
    functions: Mapping[str, Any],
    agents: Mapping[str, WorkflowAgent],
    store: WorkflowStoreInterface | None,
) -> WorkflowFunction:
    """Adapts one raw agent into the workflow function that runs it for `lineage`, the exact
    lineage of the workflow whose registry is being built."""
    raise ToolboxError(
        "TOOL",
        f"workflow agent '{name}' cannot run: the agent adapter is not available yet",
        {"agent": name},
    )
