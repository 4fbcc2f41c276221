"""The constructor-free way to the contract, the runner and the stores."""

from __future__ import annotations

from orkestrel.contract import Contract, create_contract
from orkestrel.database import DriverInterface, create_database
from orkestrel.workflow.constants import LEASE_TTL_MS, MAX_ANSWER_BYTES, WORKFLOWS_TABLE
from orkestrel.workflow.runner import WorkflowRunner
from orkestrel.workflow.shapes import workflow_shape
from orkestrel.workflow.stores import WORKFLOWS_COLUMNS, DatabaseWorkflowStore, MemoryWorkflowStore
from orkestrel.workflow.types import WorkflowRunnerInterface, WorkflowStoreInterface


def create_workflow_contract() -> Contract:
    """Compiles the strict contract of a workflow definition: its `is_valid` is the gate every
    definition passes before it runs."""
    return create_contract(workflow_shape)


def create_workflow_runner(
    *, max_answer_bytes: int = MAX_ANSWER_BYTES, lease_ttl: int = LEASE_TTL_MS
) -> WorkflowRunnerInterface:
    """Creates a `WorkflowRunner`, returned as a `WorkflowRunnerInterface`: the answers of one
    run's tasks may add up to `max_answer_bytes` of JSON, and a run's lease on its workflow id
    lasts `lease_ttl` milliseconds unrenewed."""
    return WorkflowRunner(max_answer_bytes=max_answer_bytes, lease_ttl=lease_ttl)


def create_memory_workflow_store() -> WorkflowStoreInterface:
    """Creates the in-memory `WorkflowStoreInterface`, a `MemoryWorkflowStore`."""
    return MemoryWorkflowStore()


def create_database_workflow_store(driver: DriverInterface | None = None) -> DatabaseWorkflowStore:
    """Creates a `WorkflowStoreInterface` kept in the `workflow_entries` table of the database
    layer, one row per head, phase and task of each run (in memory unless a driver is given)."""
    database = create_database(tables={WORKFLOWS_TABLE: WORKFLOWS_COLUMNS}, driver=driver)
    return DatabaseWorkflowStore(database)
