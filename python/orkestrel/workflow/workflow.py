"""The inspectable workflow tree: tasks with their status, attempts and outcome, phases and the
workflow whose statuses are derived from them."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from orkestrel.contract import clone_json_value
from orkestrel.workflow.constants import TERMINAL_STATUSES
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.helpers import derive_phase_status, derive_workflow_status
from orkestrel.workflow.results import PhaseContext, TaskContext, TaskResult, WorkflowContext
from orkestrel.workflow.types import (
    LifecycleStatus,
    PhaseStatus,
    TaskOutcome,
    TaskSnapshot,
    WorkflowSnapshot,
    WorkflowStatus,
)

_MOVES: Mapping[str, frozenset[str]] = {
    "pending": frozenset({"running", "skipped", "stopped"}),
    "running": frozenset({"completed", "failed", "skipped", "stopped"}),
}
_TASK_TREE = ("id", "name", "description", "behavior", "retries", "timeout", "input")
_TASK_TAIL = ("behavior", "retries", "timeout", "input")


def now() -> int:
    """The current time in whole milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


class TaskNode:
    """One task of a live tree: its definition and the state a run moves it through."""

    __slots__ = (
        "_cache",
        "_key",
        "attempts",
        "context",
        "definition",
        "id",
        "metadata",
        "outcome",
        "result",
        "retries",
        "settled",
        "status",
        "timeout",
    )

    def __init__(self, definition: dict[str, Any], context: TaskContext) -> None:
        self.definition = definition
        self.id: str = definition["id"]
        self.context = context
        self.status: LifecycleStatus = "pending"
        self.attempts = 0
        self.outcome: TaskOutcome | None = None
        self.settled: int | None = None
        self.result: TaskResult | None = None
        self.metadata: dict[str, Any] = {}
        self.retries = int(definition.get("retries", 0))
        self.timeout = int(definition.get("timeout", 0))
        self._cache: TaskSnapshot | None = None
        self._key: tuple[Any, ...] = ()

    def move(self, status: LifecycleStatus) -> None:
        """Moves the task to `status`, or raises `TRANSITION` for a move the lifecycle forbids."""
        if status not in _MOVES.get(self.status, ()):
            raise WorkflowError(
                "TRANSITION",
                f"task '{self.id}' cannot move from {self.status} to {status}",
                {"task": self.id, "from": self.status, "to": status},
            )
        self.status = status

    def settle(self, outcome: TaskOutcome, at: int) -> None:
        """Settles a running task `completed` or `failed` with its outcome."""
        self.move("completed" if outcome["success"] else "failed")
        self.outcome = outcome
        self.settled = at
        self.result = TaskResult(self.context, self.status, outcome, at)

    def snapshot(self) -> TaskSnapshot:
        """The task's snapshot, rebuilt only when its state changed: a checkpoint of a large
        tree then costs a lookup per unchanged task. The dict is shared; never change it."""
        key = (self.status, self.attempts, id(self.outcome), id(self.metadata))
        if self._cache is not None and key == self._key:
            return self._cache
        self._key = key
        self._cache = self._build()
        return self._cache

    def _build(self) -> TaskSnapshot:
        definition = self.definition
        out: dict[str, Any] = {"id": definition["id"], "name": definition["name"]}
        if "description" in definition:
            out["description"] = definition["description"]
        out["status"] = self.status
        if self.outcome is not None:
            out["result"] = self.outcome
            out["settled"] = self.settled
        out["metadata"] = self.metadata
        out["attempts"] = self.attempts
        for key in _TASK_TAIL:
            if key in definition:
                out[key] = definition[key]
        return out  # type: ignore[return-value]


class PhaseNode:
    """One phase of a live tree: its tasks, effective `bail` and concurrency cap."""

    __slots__ = ("bail", "concurrency", "context", "definition", "reached", "tasks")

    def __init__(
        self, definition: dict[str, Any], context: PhaseContext, tasks: list[TaskNode], bail: bool
    ) -> None:
        self.definition = definition
        self.context = context
        self.tasks = tasks
        self.bail = bail
        self.concurrency: int | None = (
            int(definition["concurrency"]) if "concurrency" in definition else None
        )
        self.reached = False

    @property
    def status(self) -> PhaseStatus:
        if not self.tasks:
            return "completed" if self.reached else "pending"
        return derive_phase_status(task.status for task in self.tasks)

    def signature(self) -> tuple[Any, ...]:
        tasks = tuple(
            tuple((key, task.definition.get(key)) for key in _TASK_TREE) for task in self.tasks
        )
        definition = self.definition
        return (
            definition["id"],
            definition["name"],
            definition.get("description"),
            self.concurrency,
            self.bail,
            tasks,
        )


class Workflow:
    """Represents a workflow tree a run has built: identity, the derived `status`, the settled
    task results and an exact JSON `snapshot()`.

    A `WorkflowResult` carries the tree its run built; `create_restored_workflow` rebuilds one
    from a snapshot for inspection. It is never run again: resuming takes a definition and a
    store (`WorkflowRunner.execute(..., resume=True)`).
    """

    __slots__ = (
        "_bail",
        "_context",
        "_created",
        "_definition",
        "_finished",
        "_phases",
        "_stopped",
        "_updated",
    )

    def __init__(
        self,
        definition: dict[str, Any],
        context: WorkflowContext,
        phases: list[PhaseNode],
        created: int,
    ) -> None:
        self._definition = definition
        self._context = context
        self._phases = phases
        self._bail = bool(definition.get("bail", False))
        self._stopped = False
        self._finished = False
        self._created = created
        self._updated = created

    @property
    def id(self) -> str:
        """The workflow's id, the key its snapshot is stored under."""
        return self._context.id

    @property
    def name(self) -> str:
        """The workflow's name."""
        return self._context.name

    @property
    def description(self) -> str | None:
        """The workflow's description, or `None` when it has none."""
        return self._context.description

    @property
    def status(self) -> WorkflowStatus:
        """The workflow's status: `stopped` when its run was stopped, else derived from its
        phases by `derive_workflow_status`."""
        if self._stopped:
            return "stopped"
        if not self._phases:
            return "completed" if self._finished else "pending"
        return derive_workflow_status((phase.status, phase.bail) for phase in self._phases)

    @property
    def created(self) -> int:
        """When the tree was first built, in milliseconds since the epoch."""
        return self._created

    @property
    def updated(self) -> int:
        """When the tree last changed, in milliseconds since the epoch."""
        return self._updated

    def results(self) -> tuple[TaskResult, ...]:
        """Lists one `TaskResult` per task that settled `completed` or `failed`, in phase then
        task order."""
        return tuple(
            task.result for phase in self._phases for task in phase.tasks if task.result is not None
        )

    def snapshot(self) -> WorkflowSnapshot:
        """Returns the tree as exact JSON, a fresh copy: every status, attempt count, input and
        outcome, and the created and updated times."""
        return clone_json_value(self._snapshot())  # type: ignore[no-any-return]

    def _snapshot(self) -> WorkflowSnapshot:
        """The snapshot without the final copy: its task entries are shared with the tree."""
        definition = self._definition
        out: dict[str, Any] = {"id": definition["id"], "name": definition["name"]}
        if "description" in definition:
            out["description"] = definition["description"]
        out["status"] = self.status
        out["bail"] = self._bail
        phases = []
        for phase in self._phases:
            source = phase.definition
            entry: dict[str, Any] = {"id": source["id"], "name": source["name"]}
            if "description" in source:
                entry["description"] = source["description"]
            entry["status"] = phase.status
            entry["bail"] = phase.bail
            if phase.concurrency is not None:
                entry["concurrency"] = phase.concurrency
            entry["tasks"] = [task.snapshot() for task in phase.tasks]
            phases.append(entry)
        out["phases"] = phases
        out["created"] = self._created
        out["updated"] = self._updated
        return out  # type: ignore[return-value]

    def _signature(self) -> tuple[Any, ...]:
        definition = self._definition
        return (
            definition["id"],
            definition["name"],
            definition.get("description"),
            self._bail,
            tuple(phase.signature() for phase in self._phases),
        )

    def __repr__(self) -> str:
        return f"<Workflow id={self.id!r} status={self.status!r}>"


def build_tree(definition: dict[str, Any], created: int) -> Workflow:
    """Builds the pending tree of a definition that passed the strict contract (and is owned)."""
    context = WorkflowContext(definition["id"], definition["name"], definition.get("description"))
    default = bool(definition.get("bail", False))
    phases = []
    for phase in definition["phases"]:
        phase_context = PhaseContext(phase["id"], phase["name"], phase.get("description"), context)
        tasks = [
            TaskNode(
                task, TaskContext(task["id"], task["name"], task.get("description"), phase_context)
            )
            for task in phase["tasks"]
        ]
        phases.append(PhaseNode(phase, phase_context, tasks, bool(phase.get("bail", default))))
    return Workflow(definition, context, phases, created)


def phases_of(workflow: Workflow) -> list[PhaseNode]:
    """The phase nodes of a tree, for the runner and the restore path."""
    return workflow._phases


def mark(workflow: Workflow, *, stopped: bool | None = None, finished: bool | None = None) -> None:
    """Records that a tree's run was stopped or has finished, and touches `updated`."""
    if stopped is not None:
        workflow._stopped = stopped
    if finished is not None:
        workflow._finished = finished
    touch(workflow)


def touch(workflow: Workflow, at: int | None = None) -> None:
    """Sets a tree's `updated` time (now unless given)."""
    workflow._updated = now() if at is None else at


def place(workflow: Workflow, created: int, updated: int) -> None:
    """Sets a tree's created and updated times, as a restore or a resume does."""
    workflow._created = created
    workflow._updated = updated


def shared_snapshot(workflow: Workflow) -> WorkflowSnapshot:
    """A tree's snapshot for a store, whose unchanged parts are shared with the tree and with
    the snapshots written before it; a store copies what it keeps and never changes it."""
    return workflow._snapshot()


def signature(workflow: Workflow) -> tuple[Any, ...]:
    """What two trees must share for one's snapshot to resume the other's definition."""
    return workflow._signature()


def is_settled(status: str) -> bool:
    """Whether a status is one nothing moves out of during a run."""
    return status in TERMINAL_STATUSES
