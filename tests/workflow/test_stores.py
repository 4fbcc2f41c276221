"""Both workflow stores against one contract, on the memory, SQLite and PostgreSQL engines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from orkestrel.database import DriverInterface, create_database
from orkestrel.workflow import (
    WORKFLOWS_COLUMNS,
    WORKFLOWS_TABLE,
    DatabaseWorkflowStore,
    MemoryWorkflowStore,
    WorkflowError,
    WorkflowStoreInterface,
    create_database_workflow_store,
    create_restored_workflow,
    create_workflow_runner,
)
from workflow.samples import phase, task, workflow

pytestmark = pytest.mark.anyio

MakeDriver = Callable[[], DriverInterface]


async def snapshot_of(id: str, *tasks: str) -> Any:
    definition = workflow(phase("p", *(task(name) for name in tasks)), id=id)
    return (await create_workflow_runner().execute(definition)).workflow.snapshot()


async def test_a_missing_id_reads_as_none_and_deletes_quietly(
    store: WorkflowStoreInterface,
) -> None:
    assert await store.get("ghost") is None
    await store.delete("ghost")


async def test_set_get_replace_delete(store: WorkflowStoreInterface) -> None:
    first = await snapshot_of("run", "a")
    await store.set(first)
    assert await store.get("run") == first
    second = await snapshot_of("run", "a", "b")
    await store.set(second)
    assert await store.get("run") == second
    await store.delete("run")
    assert await store.get("run") is None


async def test_stored_snapshots_are_copies(store: WorkflowStoreInterface) -> None:
    snapshot = await snapshot_of("run", "a")
    await store.set(snapshot)
    snapshot["name"] = "changed"
    read = await store.get("run")
    assert read is not None
    assert read["name"] == "RUN"
    read["name"] = "changed again"
    again = await store.get("run")
    assert again is not None
    assert again["name"] == "RUN"


@pytest.mark.parametrize("snapshot", [{}, {"id": ""}, {"id": 5}, "run"])
async def test_a_snapshot_without_an_id_is_refused(
    store: WorkflowStoreInterface, snapshot: Any
) -> None:
    with pytest.raises(WorkflowError) as caught:
        await store.set(snapshot)
    assert caught.value.code == "RESTORE"


async def test_memory_store_refuses_what_is_not_json() -> None:
    store = MemoryWorkflowStore()
    with pytest.raises(WorkflowError, match="must be JSON"):
        await store.set({"id": "x", "value": {1, 2}})  # type: ignore[typeddict-unknown-key]
    assert repr(store) == "<MemoryWorkflowStore ids=[]>"


async def test_a_run_persists_through_the_table_store_on_each_engine(
    make_driver: MakeDriver,
) -> None:
    writer = create_database_workflow_store(make_driver())
    definition = workflow(phase("p", task("a", "ok")), id="ingest")
    result = await create_workflow_runner().execute(
        definition, functions={"ok": lambda controller: "read"}, store=writer
    )
    assert (result.status, result.durable) == ("completed", True)
    stored = await writer.get("ingest")
    await writer.close()
    assert stored == result.workflow.snapshot()
    driver = make_driver()
    reader = create_database_workflow_store(driver)
    again = await reader.get("ingest")
    await reader.close()
    if driver.durable:
        assert again is not None
        assert create_restored_workflow(again).snapshot() == stored
    else:
        assert again is None


@pytest.mark.parametrize(
    "rows",
    [
        [{"id": '["broken","head"]', "entry": '{"id":"broken","status":"done","phases":0}'}],
        [{"id": '["broken","head"]', "entry": "{not json"}],
        [{"id": '["broken","head"]', "entry": '{"id":"broken","phases":1}'}],
    ],
    ids=["not-a-snapshot", "not-json", "a-missing-phase"],
)
async def test_malformed_stored_entries_are_restore(
    make_driver: MakeDriver, rows: list[dict[str, str]]
) -> None:
    database = create_database(tables={WORKFLOWS_TABLE: WORKFLOWS_COLUMNS}, driver=make_driver())
    store = DatabaseWorkflowStore(database)
    await database.table(WORKFLOWS_TABLE).set(rows)
    with pytest.raises(WorkflowError) as caught:
        await store.get("broken")
    assert caught.value.code == "RESTORE"
    assert repr(store) == "<DatabaseWorkflowStore table='workflow_entries'>"
    await store.close()


async def test_a_failing_table_store_is_a_fault_and_keeps_the_last_whole_snapshot(
    make_driver: MakeDriver,
) -> None:
    first = create_database_workflow_store(make_driver())
    runner = create_workflow_runner()
    done = await runner.execute(workflow(phase("p", task("a")), id="job"), store=first)
    await first.close()
    result = await runner.execute(workflow(phase("p", task("a"), task("b")), id="job"), store=first)
    assert (result.status, result.durable) == ("stopped", False)
    assert result.fault is not None
    assert result.fault["checkpoint"] == "initial"
    driver = make_driver()
    reader = create_database_workflow_store(driver)
    kept = await reader.get("job")
    await reader.close()
    assert kept == (done.workflow.snapshot() if driver.durable else None)
