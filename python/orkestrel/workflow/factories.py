"""The constructor-free way to the contract, the runner and the stores."""

from __future__ import annotations

from orkestrel.contract import Contract, create_contract
from orkestrel.database import DriverInterface, create_database
from orkestrel.workflow.constants import WORKFLOWS_TABLE
from orkestrel.workflow.runner import WorkflowRunner
from orkestrel.workflow.shapes import workflow_shape
from orkestrel.workflow.stores import WORKFLOWS_COLUMNS, DatabaseWorkflowStore, MemoryWorkflowStore
from orkestrel.workflow.types import WorkflowRunnerInterface, WorkflowStoreInterface


def create_workflow_contract() -> Contract:
    """Compiles the strict contract of a workflow definition: its `is_valid` is the gate every
    definition passes before it runs."""
    return create_contract(workflow_shape)


def create_workflow_runner() -> WorkflowRunnerInterface:
    """Creates a `WorkflowRunner`, returned as a `WorkflowRunnerInterface`."""
    return WorkflowRunner()


def create_memory_workflow_store() -> WorkflowStoreInterface:
    """Creates the in-memory `WorkflowStoreInterface`, a `MemoryWorkflowStore`."""
    return MemoryWorkflowStore()


def create_database_workflow_store(driver: DriverInterface | None = None) -> DatabaseWorkflowStore:
    """Creates a `WorkflowStoreInterface` kept in the `workflows` table of the database layer,
    one JSON cell per workflow id (in memory unless a driver is given)."""
    database = create_database(tables={WORKFLOWS_TABLE: WORKFLOWS_COLUMNS}, driver=driver)
    return DatabaseWorkflowStore(database.table(WORKFLOWS_TABLE), database)
