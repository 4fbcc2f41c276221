"""The plain data, options and agent seam of the workflow tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, Protocol, TypedDict

from orkestrel.abort import AbortSignal
from orkestrel.tool import ToolManagerInterface
from orkestrel.workflow import (
    WorkflowFault,
    WorkflowFunctions,
    WorkflowStatus,
    WorkflowStoreInterface,
)


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
    """Represents the flat authoring form, `{name?, steps}`."""

    name: NotRequired[str]
    steps: list[WorkflowStep]


class WorkflowToolResult(TypedDict):
    """Represents the JSON-safe summary of a run, `{status, count, durable?, fault?}`: `count`
    is how many tasks settled, and `durable` and `fault` appear exactly when the runner set
    them."""

    status: WorkflowStatus
    count: int
    durable: NotRequired[bool]
    fault: NotRequired[WorkflowFault]


WorkflowLineage = tuple[str, ...]
"""Represents one immutable call chain: unique tags alternating `workflow:<id>` and
`agent:<name>`, starting with a workflow tag."""


class WorkflowAgentContext(Protocol):
    """Represents what an agent's context must offer a workflow: the tool registry the agent
    calls, where its nested `workflow` tool is bound."""

    @property
    def tools(self) -> ToolManagerInterface: ...


class WorkflowAgent(Protocol):
    """Represents what a raw live agent must offer to run as a workflow task: an `id` (its
    lineage tag), a `status` (`'running'` while a run is in flight), a `context` whose `tools`
    receive the nested workflow tool, and one `generate` per task under the task's signal."""

    @property
    def id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def context(self) -> WorkflowAgentContext: ...
    async def generate(self, *, signal: AbortSignal | None = None) -> Any: ...


WorkflowAgents = Mapping[str, WorkflowAgent]
"""Represents raw live agents keyed by the workflow function names that run them."""


class WorkflowToolOptions(TypedDict, total=False):
    """Represents the options of `create_workflow_tool` and `create_workflow_functions`: the
    lineage, opaque functions, raw agents and checkpoint store of a composition."""

    lineage: WorkflowLineage
    functions: WorkflowFunctions
    agents: WorkflowAgents
    store: WorkflowStoreInterface
