"""`AgentFunction`: a live agent as a workflow function, with the lineage it runs under."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NoReturn, final

from orkestrel.contract import preview
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.constants import MAX_WORKFLOW_CHAIN
from orkestrel.toolbox.workflow.helpers import is_live_agent, snapshot_registry
from orkestrel.toolbox.workflow.lineage import (
    WORKFLOW_TAG,
    derive_workflow_depth,
    extend_lineage,
    normalize_lineage,
    tag_agent,
    tag_workflow,
)
from orkestrel.toolbox.workflow.types import WorkflowAgents, WorkflowLineage
from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowFunctions,
    WorkflowRunnerInterface,
    WorkflowStoreInterface,
)

if TYPE_CHECKING:
    # Only types: the toolbox loads the agent layer when an agent function first runs.
    from orkestrel.agent import AgentInterface


def _registry(option: str, value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return None if value is None else MappingProxyType(snapshot_registry(option, value))


@final
class AgentFunction:
    """Represents a contextual agent adapter: a workflow function that runs one live agent to a
    settled result per task, carrying immutable `category` and `lineage` metadata for toolbox
    composition.

    Build one with `create_agent_function`, or let `create_workflow_functions` build one per
    raw agent for the exact lineage of the workflow it runs in. Calling it with a task's
    controller checks the lineage (a workflow that does not match it, a chain deeper than
    `MAX_WORKFLOW_CHAIN` or an agent already in it is `DEPTH`), binds a `workflow` tool for
    nested runs onto the agent when there is a `runner` (an agent already running is `TOOL`),
    then awaits one `agent.generate(signal=controller.signal)` and answers its
    `agent_result_to_json` projection. Attributes cannot be set.
    """

    __slots__ = ("_agent", "_agents", "_functions", "_id", "_lineage", "_runner", "_store")

    _agent: AgentInterface
    _id: str
    _lineage: WorkflowLineage
    _runner: WorkflowRunnerInterface | None
    _functions: WorkflowFunctions | None
    _agents: WorkflowAgents | None
    _store: WorkflowStoreInterface | None

    def __init__(
        self,
        agent: AgentInterface,
        *,
        runner: WorkflowRunnerInterface | None = None,
        lineage: WorkflowLineage | None = None,
        functions: WorkflowFunctions | None = None,
        agents: WorkflowAgents | None = None,
        store: WorkflowStoreInterface | None = None,
    ) -> None:
        if not is_live_agent(agent):
            raise ToolboxError(
                "TOOL",
                "agent function needs a live agent with an id, a status, a context and generate",
                {"agent": preview(agent)},
            )
        id = agent.id
        if type(id) is not str or not id:
            raise ToolboxError(
                "TOOL", "agent function needs an agent whose id is a non-empty string"
            )
        if runner is not None and not callable(getattr(runner, "execute", None)):
            raise ToolboxError("TOOL", "agent function runner must have an execute method")
        current = normalize_lineage(lineage or ())
        if current and not current[-1].startswith(WORKFLOW_TAG):
            raise ToolboxError(
                "TOOL",
                "agent function lineage must end with a workflow tag",
                {"lineage": list(current)},
            )
        for name, value in (
            ("_agent", agent),
            ("_id", id),
            ("_lineage", current),
            ("_runner", runner),
            ("_functions", _registry("functions", functions)),
            ("_agents", _registry("agents", agents)),
            ("_store", store),
        ):
            object.__setattr__(self, name, value)

    @property
    def category(self) -> Literal["agent"]:
        """What kind of workflow function this is, always `'agent'`."""
        return "agent"

    @property
    def lineage(self) -> WorkflowLineage:
        """The lineage the agent runs under, ending with its workflow's tag; empty for a root
        workflow."""
        return self._lineage

    async def __call__(self, controller: TaskControllerInterface) -> dict[str, Any]:
        # No await before `generate` starts: a sibling task must see the agent running.
        workflow = controller.task.phase.workflow.id
        current = self._lineage or (tag_workflow(workflow),)
        if current[-1] != tag_workflow(workflow):
            raise ToolboxError(
                "DEPTH",
                "agent function workflow does not match its lineage",
                {"workflow": workflow, "lineage": list(current)},
            )
        id = self._id
        depth = derive_workflow_depth(current)
        if depth > MAX_WORKFLOW_CHAIN:
            raise ToolboxError(
                "DEPTH",
                f"agent '{id}' exceeds max workflow depth {MAX_WORKFLOW_CHAIN}",
                {"agent": id, "depth": depth, "max": MAX_WORKFLOW_CHAIN},
            )
        tag = tag_agent(id)
        if tag in current:
            raise ToolboxError(
                "DEPTH",
                f"agent '{id}' is already an ancestor (cycle)",
                {"agent": id, "lineage": list(current)},
            )
        agent, runner = self._agent, self._runner
        if runner is not None:
            if agent.status == "running":
                raise ToolboxError("TOOL", f"agent '{id}' is already running", {"agent": id})
            self._bind(runner, workflow, extend_lineage(current, tag))
        from orkestrel.agent import agent_result_to_json

        result = agent_result_to_json(await agent.generate(signal=controller.signal))
        if result is None:
            raise ToolboxError("TOOL", f"agent '{id}' returned a non-JSON result", {"agent": id})
        return result

    def _bind(
        self, runner: WorkflowRunnerInterface, workflow: str, nested: WorkflowLineage
    ) -> None:
        """Gives the agent a `workflow` tool for runs nested under `nested`; it wraps the
        containing workflow, so a call that authors nothing new is a cycle."""
        # Imported here: the factories import the registry, which imports this module.
        from orkestrel.toolbox.workflow.factories import create_workflow_tool

        self._agent.context.tools.add(
            create_workflow_tool(
                {"id": workflow, "name": workflow, "phases": []},
                runner,
                lineage=nested,
                functions=self._functions,
                agents=self._agents,
                store=self._store,
            )
        )

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"AgentFunction is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"AgentFunction is immutable; cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"AgentFunction(agent={self._id!r}, lineage={self._lineage!r})"
