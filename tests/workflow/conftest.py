"""Fixtures of the workflow tests: anyio backends, database drivers for the table store (shared
with the workspace tests), and a store of each kind."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from orkestrel.workflow import (
    WorkflowStoreInterface,
    create_database_workflow_store,
    create_memory_workflow_store,
)
from workspace.conftest import anyio_backend, make_driver, postgres_dsn

__all__ = ["anyio_backend", "make_driver", "postgres_dsn"]


@pytest.fixture(params=["memory", "database"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[WorkflowStoreInterface]:
    if request.param == "memory":
        yield create_memory_workflow_store()
        return
    database = create_database_workflow_store()
    yield database
    await database.close()
