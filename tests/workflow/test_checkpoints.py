"""The four checkpoint writes, `durable` and `fault`: what a store sees, and what a failing
store does to a run."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowSnapshot,
    create_memory_workflow_store,
    create_restored_workflow,
)
from workflow.samples import FailingStore, RecordingStore, phase, run, statuses, task, workflow

pytestmark = pytest.mark.anyio


def history(writes: list[WorkflowSnapshot], id: str) -> list[str]:
    """The statuses one task had in successive writes, repeats folded."""
    seen: list[str] = []
    for snapshot in writes:
        status = statuses(snapshot)[id]
        if not seen or seen[-1] != status:
            seen.append(status)
    return seen


async def test_without_a_store_nothing_is_durable_and_nothing_faults() -> None:
    result = await run(workflow(phase("p", task("a"))))
    assert (result.durable, result.fault) == (None, None)


async def test_a_run_writes_initial_attempt_settlement_and_final() -> None:
    store = RecordingStore()
    seen: list[dict[str, str]] = []

    def look(controller: TaskControllerInterface) -> str:
        seen.append(statuses(store.writes[-1]))
        return "done"

    result = await run(
        workflow(phase("p", task("a", "look"))), functions={"look": look}, store=store
    )
    assert (result.durable, result.fault) == (True, None)
    assert [statuses(write) for write in store.writes] == [
        {"a": "pending"},
        {"a": "running"},
        {"a": "completed"},
        {"a": "completed"},
    ]
    assert seen == [{"a": "running"}]
    assert [write["status"] for write in store.writes] == [
        "pending",
        "running",
        "completed",
        "completed",
    ]
    final = await store.get("wf")
    assert final == result.workflow.snapshot()


async def test_each_attempt_is_written_before_it_runs() -> None:
    store = RecordingStore()
    attempts: list[int] = []

    def flaky(controller: TaskControllerInterface) -> str:
        written = store.writes[-1]["phases"][0]["tasks"][0]
        attempts.append(written["attempts"])
        if controller.attempt < 3:
            raise RuntimeError("again")
        return "ok"

    await run(
        workflow(phase("p", task("a", "flaky", retries=2))), functions={"flaky": flaky}, store=store
    )
    assert attempts == [1, 2, 3]


async def test_the_persisted_history_of_every_task_is_pending_running_settled() -> None:
    store = RecordingStore()

    async def work(controller: TaskControllerInterface) -> None:
        await anyio.lowlevel.checkpoint()

    def bad(controller: TaskControllerInterface) -> None:
        raise RuntimeError("bad")

    tasks = [task(f"t{index}", "work") for index in range(8)]
    definition = workflow(phase("one", *tasks, concurrency=3), phase("two", task("x", "bad")))
    await run(definition, functions={"work": work, "bad": bad}, store=store)
    for index in range(8):
        assert history(store.writes, f"t{index}") == ["pending", "running", "completed"]
    assert history(store.writes, "x") == ["pending", "running", "failed"]
    for write in store.writes:
        create_restored_workflow(write)


async def test_repeated_runs_of_one_id_replace_the_same_snapshot() -> None:
    store = create_memory_workflow_store()
    await run(workflow(phase("p", task("a")), id="nightly"), store=store)
    first = await store.get("nightly")
    await run(workflow(phase("p", task("a"), task("b")), id="nightly"), store=store)
    second = await store.get("nightly")
    assert first is not None
    assert second is not None
    assert len(second["phases"][0]["tasks"]) == 2
    assert second["created"] >= first["created"]


async def test_an_always_failing_store_stops_the_run_at_initial() -> None:
    store = FailingStore()
    called: list[str] = []
    definition = workflow(phase("p", task("a", "work")), phase("q", task("b")))
    result = await run(definition, functions={"work": called.append}, store=store)
    assert (result.status, result.durable) == ("stopped", False)
    assert result.fault == {
        "origin": "persistence",
        "checkpoint": "initial",
        "message": "disk full (write 1)",
    }
    assert statuses(result.workflow.snapshot()) == {"a": "skipped", "b": "skipped"}
    assert (called, result.results, store.attempts) == ([], (), 2)


async def test_a_store_that_fails_once_recovers_durability_and_keeps_the_fault() -> None:
    store = FailingStore(failures=1)
    result = await run(workflow(phase("p", task("a"))), store=store)
    assert (result.status, result.durable) == ("stopped", True)
    assert result.fault is not None
    assert result.fault["checkpoint"] == "initial"
    stored = await store.get("wf")
    assert stored is not None
    assert stored == result.workflow.snapshot()
    assert create_restored_workflow(stored).status == "stopped"


class FailsAt(RecordingStore):
    """Fails the write number `at` (1-based) and only that one."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at
        self.count = 0

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        self.count += 1
        if self.count == self.at:
            raise RuntimeError(f"write {self.count} lost")
        await super().set(snapshot)


async def test_a_failed_attempt_write_names_the_task_and_attempt_and_runs_nothing() -> None:
    store = FailsAt(2)
    called: list[str] = []
    result = await run(
        workflow(phase("p", task("a", "work")), phase("q", task("b"))),
        functions={"work": called.append},
        store=store,
    )
    assert result.fault == {
        "origin": "persistence",
        "checkpoint": "attempt",
        "message": "write 2 lost",
        "task": "a",
        "attempt": 1,
    }
    assert (result.status, result.durable, called) == ("stopped", True, [])
    assert statuses(result.workflow.snapshot()) == {"a": "skipped", "b": "skipped"}


async def test_a_failed_settlement_write_keeps_the_outcome_it_was_recording() -> None:
    store = FailsAt(3)
    result = await run(
        workflow(phase("p", task("a", "work")), phase("q", task("b"))),
        functions={"work": lambda controller: "kept"},
        store=store,
    )
    assert result.fault is not None
    assert (result.fault["checkpoint"], result.fault.get("task")) == ("settlement", "a")
    assert result.status == "stopped"
    assert statuses(result.workflow.snapshot()) == {"a": "completed", "b": "skipped"}
    assert [item.result for item in result.results] == [{"success": True, "value": "kept"}]
    assert result.durable is True


async def test_a_failed_final_write_is_not_durable_and_is_the_fault() -> None:
    store = FailsAt(4)
    result = await run(workflow(phase("p", task("a"))), store=store)
    assert result.status == "completed"
    assert result.durable is False
    assert result.fault is not None
    assert result.fault["checkpoint"] == "final"


class SlowStore(RecordingStore):
    """A store whose writes take a scheduler turn or two, so requests queue behind them."""

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        await anyio.sleep(0.001)
        await super().set(snapshot)


async def test_queued_requests_share_one_write_that_covers_them() -> None:
    store = SlowStore()

    async def work(controller: TaskControllerInterface) -> None:
        await anyio.lowlevel.checkpoint()

    tasks = [task(f"t{index}", "work") for index in range(20)]
    result = await run(workflow(phase("p", *tasks)), functions={"work": work}, store=store)
    assert result.durable is True
    assert len(store.writes) < 2 + 2 * len(tasks)
    for index in range(20):
        assert history(store.writes, f"t{index}") == ["pending", "running", "completed"]
    assert statuses(store.writes[-1]) == {f"t{index}": "completed" for index in range(20)}
