"""The plain data, callables and interfaces of the workflow layer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NotRequired,
    Protocol,
    runtime_checkable,
)

# typing_extensions: pydantic describes these records (the workflow tool's outputSchema), which
# before Python 3.12 it can only do for a TypedDict from typing_extensions.
from typing_extensions import TypedDict

from orkestrel.abort import AbortSignal

if TYPE_CHECKING:
    from orkestrel.workflow.results import TaskContext, TaskResult, WorkflowResult

LifecycleStatus = Literal["pending", "running", "completed", "failed", "skipped", "stopped"]
"""Represents where a task, phase or workflow is in its lifecycle."""

TaskStatus = LifecycleStatus
"""Represents a task's status: `pending`, then `running`, then `completed` or `failed`; or
`skipped` when it never settled (bail, cancel, a persistence fault)."""

PhaseStatus = LifecycleStatus
"""Represents a phase's status, derived from its tasks by `derive_phase_status`."""

WorkflowStatus = LifecycleStatus
"""Represents a workflow's status, derived from its phases by `derive_workflow_status`, or
`stopped` when the run was stopped."""

WorkflowCheckpoint = Literal["initial", "attempt", "settlement", "final"]
"""Represents one of the four moments a run writes its snapshot to a store."""


class TaskDefinition(TypedDict):
    """Represents one task: its identity, the registered `behavior` it runs (none is a no-op),
    its extra attempts, its per-attempt deadline in milliseconds and its JSON `input`."""

    id: str
    name: str
    description: NotRequired[str]
    behavior: NotRequired[str]
    retries: NotRequired[int]
    timeout: NotRequired[int]
    input: NotRequired[dict[str, Any]]


class PhaseDefinition(TypedDict):
    """Represents one phase: tasks that run concurrently, at most `concurrency` at a time, and
    whether a failure stops the run (`bail`, the workflow's when absent)."""

    id: str
    name: str
    description: NotRequired[str]
    tasks: list[TaskDefinition]
    concurrency: NotRequired[int]
    bail: NotRequired[bool]


class WorkflowDefinition(TypedDict):
    """Represents a workflow as pure JSON: phases that run one after another, and whether a
    failed task stops the run (`bail`, default false)."""

    id: str
    name: str
    description: NotRequired[str]
    phases: list[PhaseDefinition]
    bail: NotRequired[bool]


class TaskFailure(TypedDict):
    """Represents why a task failed: its function raised (`handler`), its attempt ran out of
    time (`timeout`) or its answer would have taken the run's answers over `max_answer_bytes`
    (`limit`), with a one-line message."""

    origin: Literal["handler", "timeout", "limit"]
    message: str


class TaskSucceeded(TypedDict):
    """Represents the outcome of a completed task: the JSON value its function returned."""

    success: Literal[True]
    value: Any


class TaskFailed(TypedDict):
    """Represents the outcome of a failed task: the failure of its last attempt."""

    success: Literal[False]
    error: TaskFailure


TaskOutcome = TaskSucceeded | TaskFailed
"""Represents what a settled task produced: `{success: True, value}` or
`{success: False, error}`."""


class WorkflowFault(TypedDict):
    """Represents what first stopped a run from outside its tasks: a checkpoint write that
    failed (`persistence`: which checkpoint, the store's message) or an answer over
    `max_answer_bytes` (`limit`), and the task and attempt it was for, when there was one."""

    origin: Literal["persistence", "limit"]
    checkpoint: WorkflowCheckpoint
    message: str
    task: NotRequired[str]
    attempt: NotRequired[int]


class TaskSnapshot(TypedDict):
    """Represents one task in a snapshot: its definition, status, attempts consumed, the input it
    was handed (`metadata`), and its outcome and settle time once settled."""

    id: str
    name: str
    description: NotRequired[str]
    status: TaskStatus
    result: NotRequired[TaskOutcome]
    settled: NotRequired[int]
    metadata: dict[str, Any]
    attempts: int
    behavior: NotRequired[str]
    retries: NotRequired[int]
    timeout: NotRequired[int]
    input: NotRequired[dict[str, Any]]


class PhaseSnapshot(TypedDict):
    """Represents one phase in a snapshot: its definition, status and effective `bail`."""

    id: str
    name: str
    description: NotRequired[str]
    status: PhaseStatus
    bail: bool
    concurrency: NotRequired[int]
    tasks: list[TaskSnapshot]


class WorkflowSnapshot(TypedDict):
    """Represents the durable JSON of a run: the tree with every status and outcome, and when it
    was created and last updated (milliseconds since the epoch)."""

    id: str
    name: str
    description: NotRequired[str]
    status: WorkflowStatus
    bail: bool
    phases: list[PhaseSnapshot]
    created: int
    updated: int


class TaskControllerInterface(Protocol):
    """Represents what a workflow function is handed for one attempt: the attempt's abort
    `signal`, its 1-based number, the task's context and input, and earlier phases' results."""

    @property
    def signal(self) -> AbortSignal: ...
    @property
    def aborted(self) -> bool: ...
    @property
    def attempt(self) -> int: ...
    @property
    def task(self) -> TaskContext: ...
    @property
    def input(self) -> dict[str, Any]: ...
    def results(self) -> tuple[TaskResult, ...]: ...


WorkflowFunction = Callable[[TaskControllerInterface], Any | Awaitable[Any]]
"""Represents the code behind a task's `behavior`: called with the attempt's controller, sync
(run in a worker thread) or async, returning a JSON value."""

WorkflowFunctions = Mapping[str, WorkflowFunction]
"""Represents the registry a run resolves `behavior` names in, by mapping lookup only."""

WorkflowProgress = Callable[[int, int, str], Awaitable[None]]
"""Hears a run's progress: after each task settles, the settled count, the task count and a
one-line message naming the task and its status."""


class WorkflowStoreInterface(Protocol):
    """Represents where a run checkpoints its snapshot: async point access keyed by workflow id,
    where `delete` of an absent id is a no-op."""

    async def get(self, id: str) -> WorkflowSnapshot | None:
        """Resolves the snapshot stored for `id`, or `None` when none is stored."""
        ...

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        """Inserts or replaces a snapshot under its own `id`; the runner shares the snapshot's
        unchanged parts between writes, so a store keeps a copy and never changes it."""
        ...

    async def delete(self, id: str) -> None:
        """Drops the snapshot stored under `id`."""
        ...


@runtime_checkable
class WorkflowLeaseInterface(Protocol):
    """Represents a store that leases runs, so that one runner at a time runs a workflow id,
    across processes when the store is shared: the runner takes the lease before it reads or
    writes anything and gives it back after its final write."""

    async def acquire(self, id: str, owner: str, ttl: int) -> None:
        """Takes or renews the lease on `id` for `owner` for `ttl` milliseconds; raises
        `WorkflowError("LEASE")` while another owner holds an unexpired lease."""
        ...

    async def release(self, id: str, owner: str) -> None:
        """Gives back the lease on `id` when `owner` holds it; a no-op otherwise."""
        ...


class WorkflowRunnerInterface(Protocol):
    """Represents something that runs a `WorkflowDefinition` to a `WorkflowResult`."""

    async def execute(
        self,
        definition: Mapping[str, Any],
        *,
        functions: WorkflowFunctions | None = None,
        store: WorkflowStoreInterface | None = None,
        signal: AbortSignal | None = None,
        timeout: int | None = None,
        inputs: Mapping[str, Mapping[str, Any]] | None = None,
        resume: bool = False,
        progress: WorkflowProgress | None = None,
    ) -> WorkflowResult: ...
