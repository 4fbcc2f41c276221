"""What a run hands back: the lineage contexts of tasks, and task and workflow results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from orkestrel.workflow.types import TaskOutcome, TaskStatus, WorkflowFault, WorkflowStatus

if TYPE_CHECKING:
    from orkestrel.workflow.workflow import Workflow


@dataclass(frozen=True, slots=True)
class WorkflowContext:
    """Represents the workflow a task belongs to: its id, name and description."""

    id: str
    name: str
    description: str | None


@dataclass(frozen=True, slots=True)
class PhaseContext:
    """Represents the phase a task belongs to, and through `workflow` its workflow."""

    id: str
    name: str
    description: str | None
    workflow: WorkflowContext


@dataclass(frozen=True, slots=True)
class TaskContext:
    """Represents a task as its function sees it, with its lineage `task.phase.workflow`."""

    id: str
    name: str
    description: str | None
    phase: PhaseContext


@dataclass(frozen=True, slots=True)
class TaskResult:
    """Represents one settled task: its context, `completed` or `failed`, its outcome and when
    it settled (milliseconds since the epoch)."""

    task: TaskContext
    status: TaskStatus
    result: TaskOutcome
    timestamp: int


@dataclass(frozen=True, slots=True)
class WorkflowResult:
    """Represents a finished run: the inspectable workflow, its status, one `TaskResult` per task
    that settled, and, with a store, whether the final snapshot was written (`durable`) and the
    first failed checkpoint write (`fault`)."""

    workflow: Workflow
    status: WorkflowStatus
    results: tuple[TaskResult, ...]
    durable: bool | None = None
    fault: WorkflowFault | None = None
