"""The plain data and options of the workflow tool and the agent adapter."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NotRequired, Protocol

# typing_extensions: pydantic derives the tool's outputSchema from these records, which before
# Python 3.12 it can only do for a TypedDict from typing_extensions.
from typing_extensions import TypedDict

from orkestrel.tool import ToolInterface
from orkestrel.workflow import (
    TaskFailure,
    TaskStatus,
    WorkflowFault,
    WorkflowFunctions,
    WorkflowRunnerInterface,
    WorkflowStatus,
    WorkflowStoreInterface,
)

if TYPE_CHECKING:
    # Only types: the workflow family does not load the agent layer.
    from orkestrel.agent import AgentInterface


class TaskDraft(TypedDict, total=False):
    """Represents a draft task: a `TaskDefinition` whose `id` and `name` may be omitted."""

    id: str
    name: str
    description: str
    behavior: str
    retries: int
    timeout: int
    input: dict[str, Any]


class PhaseDraft(TypedDict):
    """Represents a draft phase: a `PhaseDefinition` whose `id` and `name` may be omitted, with
    `TaskDraft` tasks."""

    id: NotRequired[str]
    name: NotRequired[str]
    description: NotRequired[str]
    tasks: list[TaskDraft]
    concurrency: NotRequired[int]
    bail: NotRequired[bool]


class WorkflowDraft(TypedDict):
    """Represents a draft workflow: a `WorkflowDefinition` whose `id` and `name` may be omitted
    at every level."""

    id: NotRequired[str]
    name: NotRequired[str]
    description: NotRequired[str]
    phases: list[PhaseDraft]
    bail: NotRequired[bool]


class WorkflowStep(TypedDict):
    """Represents one flat step, `{name, input?}`: a registered behavior and its input."""

    name: str
    input: NotRequired[dict[str, Any]]


class WorkflowSteps(TypedDict):
    """Represents the flat authoring form, `{name?, bail?, steps}`."""

    name: NotRequired[str]
    bail: NotRequired[bool]
    steps: list[WorkflowStep]


class WorkflowToolFailure(TypedDict):
    """Represents one failed task in a run's summary: its id, where it failed and why."""

    task: str
    origin: str
    message: str


class WorkflowToolResult(TypedDict):
    """Represents the JSON-safe summary of a run, `{status, count, failed?, failures?, more?,
    durable?, fault?}`: `count` is how many tasks settled; when any failed, `failed` is how many,
    `failures` names the first of those and `more` how many were left out; `durable` and
    `fault` appear exactly when the runner set them."""

    status: WorkflowStatus
    count: int
    failed: NotRequired[int]
    failures: NotRequired[list[WorkflowToolFailure]]
    more: NotRequired[int]
    durable: NotRequired[bool]
    fault: NotRequired[WorkflowFault]


class WorkflowRunTask(TypedDict):
    """Represents one task of a stored run's page, `{task, phase, status, value?, error?}`:
    `value` is its answer when it succeeded, `error` why it failed (its message cut)."""

    task: str
    phase: str
    status: TaskStatus
    value: NotRequired[Any]
    error: NotRequired[TaskFailure]


class WorkflowRunPage(TypedDict):
    """Represents a page of a stored run, `{run, status, total, offset, tasks, more?}`: its
    stored status, how many tasks it has, the page's tasks from `offset`, and `more` counting
    the tasks after the page."""

    run: str
    status: WorkflowStatus
    total: int
    offset: int
    tasks: list[WorkflowRunTask]
    more: NotRequired[int]


WorkflowToolAnswer = WorkflowToolResult | WorkflowRunPage
"""Represents every answer of the workflow tool: a run's summary, or a page of a stored run."""


WorkflowLineage = tuple[str, ...]
"""Represents one immutable call chain: unique tags alternating `workflow:<id>` and
`agent:<name>`, starting with a workflow tag."""


WorkflowAgents = Mapping[str, "AgentInterface"]
"""Represents raw live agents keyed by the workflow function names that run them."""


class WorkflowToolOptions(TypedDict, total=False):
    """Represents the options of `create_workflow_tool` and `create_workflow_functions`: the
    lineage, opaque functions, raw agents and checkpoint store of a composition."""

    lineage: WorkflowLineage
    functions: WorkflowFunctions
    agents: WorkflowAgents
    store: WorkflowStoreInterface


class AgentFunctionOptions(TypedDict, total=False):
    """Represents the options of `create_agent_function`: the lineage the agent runs under, and
    the runner, opaque functions, raw agents and checkpoint store its nested `workflow` tool is
    composed from."""

    runner: WorkflowRunnerInterface | None
    lineage: WorkflowLineage | None
    functions: WorkflowFunctions | None
    agents: WorkflowAgents | None
    store: WorkflowStoreInterface | None


class WorkflowToolFactory(Protocol):
    """Represents `create_workflow_tool` as an agent function receives it: what builds the
    `workflow` tool bound onto the agent for nested runs. It is passed in, not imported, because
    the tool composes agent functions in turn."""

    def __call__(
        self,
        definition: Mapping[str, Any],
        runner: WorkflowRunnerInterface,
        *,
        lineage: WorkflowLineage | None = None,
        functions: WorkflowFunctions | None = None,
        agents: WorkflowAgents | None = None,
        store: WorkflowStoreInterface | None = None,
    ) -> ToolInterface: ...
