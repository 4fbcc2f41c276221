"""`AgentFunction`: a live agent as a workflow function, with the lineage it runs under."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeGuard, final

from orkestrel.contract import preview
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.constants import MAX_WORKFLOW_CHAIN
from orkestrel.toolbox.workflow.helpers import is_live_agent, snapshot_registry
from orkestrel.toolbox.workflow.lineage import (
    WORKFLOW_TAG,
    derive_workflow_depth,
    extend_lineage,
    is_workflow_lineage,
    normalize_lineage,
    tag_agent,
    tag_workflow,
)
from orkestrel.toolbox.workflow.types import WorkflowAgents, WorkflowLineage, WorkflowToolFactory
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
    raw agent for the exact lineage of the workflow it runs in; both pass `create_workflow_tool`
    as `tool` (a `runner` without a `tool` is `TOOL`). Calling it with a task's
    controller checks the lineage (a workflow that does not match it, a chain deeper than
    `MAX_WORKFLOW_CHAIN` or an agent already in it is `DEPTH`), binds the `workflow` tool `tool`
    builds for nested runs onto the agent when there is a `runner` (an agent already running is
    `TOOL`),
    then awaits one `agent.generate(signal=controller.signal)` and answers its
    `agent_result_to_json` projection. Attributes cannot be set.
    """

    __slots__ = (
        "_agent",
        "_agents",
        "_functions",
        "_id",
        "_lineage",
        "_runner",
        "_store",
        "_tool",
    )

    _agent: AgentInterface
    _id: str
    _lineage: WorkflowLineage
    _runner: WorkflowRunnerInterface | None
    _functions: WorkflowFunctions | None
    _agents: WorkflowAgents | None
    _store: WorkflowStoreInterface | None
    _tool: WorkflowToolFactory | None

    def __init__(
        self,
        agent: AgentInterface,
        *,
        runner: WorkflowRunnerInterface | None = None,
        lineage: WorkflowLineage | None = None,
        functions: WorkflowFunctions | None = None,
        agents: WorkflowAgents | None = None,
        store: WorkflowStoreInterface | None = None,
        tool: WorkflowToolFactory | None = None,
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
        if runner is not None and tool is None:
            raise ToolboxError(
                "TOOL", "agent function with a runner needs the workflow tool factory as tool"
            )
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
            ("_tool", tool),
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
        agent, runner, tool = self._agent, self._runner, self._tool
        if runner is not None and tool is not None:
            if agent.status == "running":
                raise ToolboxError("TOOL", f"agent '{id}' is already running", {"agent": id})
            self._bind(tool, runner, workflow, extend_lineage(current, tag))
        # Deferred for start-up time: the agent layer loads when an agent function first runs.
        from orkestrel.agent import agent_result_to_json

        result = agent_result_to_json(await agent.generate(signal=controller.signal))
        if result is None:
            raise ToolboxError("TOOL", f"agent '{id}' returned a non-JSON result", {"agent": id})
        return result

    def _bind(
        self,
        tool: WorkflowToolFactory,
        runner: WorkflowRunnerInterface,
        workflow: str,
        nested: WorkflowLineage,
    ) -> None:
        """Gives the agent a `workflow` tool for runs nested under `nested`; it wraps the
        containing workflow, so a call that authors nothing new is a cycle."""
        self._agent.context.tools.add(
            tool(
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


def is_agent_function(value: Any) -> TypeGuard[AgentFunction]:
    """Narrows an unknown callable to the toolbox's immutable agent adapter: an `AgentFunction`
    itself (not a look-alike or a subclass) whose lineage is valid; total on any input."""
    if type(value) is not AgentFunction:
        return False
    lineage = value.lineage
    return is_workflow_lineage(lineage) and (not lineage or lineage[-1].startswith(WORKFLOW_TAG))
