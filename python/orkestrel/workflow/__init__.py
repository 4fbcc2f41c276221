"""Durable workflows: a JSON definition of phases and tasks, run by an async runner that
checkpoints every step to a store and can resume an interrupted run.

    runner = create_workflow_runner()
    store = create_database_workflow_store(create_sqlite_driver("runs.sqlite3"))
    result = await runner.execute(definition, functions={"build": build}, store=store)
    result.status, result.durable          # ("completed", True)
    await runner.execute(definition, functions=..., store=store, resume=True)  # after a crash

Tasks name their function in `behavior`; phases run in order, a phase's tasks concurrently.
Failures are data in the result; the runner raises a `WorkflowError` only for what it cannot
run.
"""

from orkestrel.workflow.constants import (
    LEASE_TTL_MS,
    LIFECYCLE_STATUSES,
    MAX_ANSWER_BYTES,
    MAX_TASK_RETRIES,
    MAX_TIMER_MS,
    TERMINAL_STATUSES,
    WORKFLOW_CHECKPOINTS,
    WORKFLOWS_TABLE,
)
from orkestrel.workflow.controller import TaskController
from orkestrel.workflow.errors import (
    WORKFLOW_ERROR_CODES,
    WorkflowError,
    WorkflowErrorCode,
    is_workflow_error,
)
from orkestrel.workflow.factories import (
    create_database_workflow_store,
    create_memory_workflow_store,
    create_workflow_contract,
    create_workflow_runner,
)
from orkestrel.workflow.helpers import derive_phase_status, derive_workflow_status
from orkestrel.workflow.results import (
    PhaseContext,
    TaskContext,
    TaskResult,
    WorkflowContext,
    WorkflowResult,
)
from orkestrel.workflow.runner import WorkflowRunner
from orkestrel.workflow.shapes import (
    phase_shape,
    task_shape,
    workflow_shape,
    workflow_snapshot_shape,
)
from orkestrel.workflow.snapshot import create_restored_workflow
from orkestrel.workflow.stores import WORKFLOWS_COLUMNS, DatabaseWorkflowStore, MemoryWorkflowStore
from orkestrel.workflow.types import (
    LifecycleStatus,
    PhaseDefinition,
    PhaseSnapshot,
    PhaseStatus,
    TaskControllerInterface,
    TaskDefinition,
    TaskFailed,
    TaskFailure,
    TaskOutcome,
    TaskSnapshot,
    TaskStatus,
    TaskSucceeded,
    WorkflowCheckpoint,
    WorkflowDefinition,
    WorkflowFault,
    WorkflowFunction,
    WorkflowFunctions,
    WorkflowLeaseInterface,
    WorkflowProgress,
    WorkflowRunnerInterface,
    WorkflowSnapshot,
    WorkflowStatus,
    WorkflowStoreInterface,
)
from orkestrel.workflow.workflow import Workflow

__all__ = [
    "LEASE_TTL_MS",
    "LIFECYCLE_STATUSES",
    "MAX_ANSWER_BYTES",
    "MAX_TASK_RETRIES",
    "MAX_TIMER_MS",
    "TERMINAL_STATUSES",
    "WORKFLOWS_COLUMNS",
    "WORKFLOWS_TABLE",
    "WORKFLOW_CHECKPOINTS",
    "WORKFLOW_ERROR_CODES",
    "DatabaseWorkflowStore",
    "LifecycleStatus",
    "MemoryWorkflowStore",
    "PhaseContext",
    "PhaseDefinition",
    "PhaseSnapshot",
    "PhaseStatus",
    "TaskContext",
    "TaskController",
    "TaskControllerInterface",
    "TaskDefinition",
    "TaskFailed",
    "TaskFailure",
    "TaskOutcome",
    "TaskResult",
    "TaskSnapshot",
    "TaskStatus",
    "TaskSucceeded",
    "Workflow",
    "WorkflowCheckpoint",
    "WorkflowContext",
    "WorkflowDefinition",
    "WorkflowError",
    "WorkflowErrorCode",
    "WorkflowFault",
    "WorkflowFunction",
    "WorkflowFunctions",
    "WorkflowLeaseInterface",
    "WorkflowProgress",
    "WorkflowResult",
    "WorkflowRunner",
    "WorkflowRunnerInterface",
    "WorkflowSnapshot",
    "WorkflowStatus",
    "WorkflowStoreInterface",
    "create_database_workflow_store",
    "create_memory_workflow_store",
    "create_restored_workflow",
    "create_workflow_contract",
    "create_workflow_runner",
    "derive_phase_status",
    "derive_workflow_status",
    "is_workflow_error",
    "phase_shape",
    "task_shape",
    "workflow_shape",
    "workflow_snapshot_shape",
]
