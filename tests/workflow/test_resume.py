"""`resume=True`: an interrupted run continues from its stored snapshot; completed tasks keep
their outcome and do not run again."""

from __future__ import annotations

from collections import Counter
from typing import Any

import anyio
import pytest

from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowError,
    WorkflowSnapshot,
    create_memory_workflow_store,
    create_workflow_runner,
)
from workflow.samples import RecordingStore, phase, statuses, task, workflow

pytestmark = pytest.mark.anyio

DEFINITION = workflow(
    phase("one", task("a", "work"), task("b", "work")),
    phase("two", task("c", "work"), task("gate", "gate"), concurrency=1),
    phase("three", task("d", "work")),
    id="resumable",
)


def outcomes(result: Any) -> list[tuple[str, str, Any]]:
    return [(item.task.id, item.status, item.result) for item in result.results]


class Harness:
    """Functions that count their runs; `gate` parks until the test lets it through."""

    def __init__(self) -> None:
        self.runs: Counter[str] = Counter()
        self.parked = anyio.Event()
        self.hold = True

    def functions(self) -> dict[str, Any]:
        async def work(controller: TaskControllerInterface) -> str:
            self.runs[controller.task.id] += 1
            return f"{controller.task.id} done"

        async def gate(controller: TaskControllerInterface) -> dict[str, int]:
            self.runs["gate"] += 1
            if self.hold:
                self.parked.set()
                await anyio.sleep_forever()
            return {"attempt": controller.attempt}

        return {"work": work, "gate": gate}


async def interrupted(store: Any, harness: Harness) -> None:
    """Runs until `gate` parks, then cancels the whole call: no final write, as in a crash."""
    runner = create_workflow_runner()
    async with anyio.create_task_group() as group:

        async def go() -> None:
            await runner.execute(DEFINITION, functions=harness.functions(), store=store)

        group.start_soon(go)
        await harness.parked.wait()
        group.cancel_scope.cancel()


async def test_completed_tasks_do_not_run_again_and_the_result_matches() -> None:
    store = create_memory_workflow_store()
    harness = Harness()
    await interrupted(store, harness)
    stored = await store.get("resumable")
    assert stored is not None
    assert statuses(stored) == {
        "a": "completed",
        "b": "completed",
        "c": "completed",
        "gate": "running",
        "d": "pending",
    }
    harness.hold = False
    resumed = await create_workflow_runner().execute(
        DEFINITION, functions=harness.functions(), store=store, resume=True
    )
    assert harness.runs == {"a": 1, "b": 1, "c": 1, "gate": 2, "d": 1}
    fresh = Harness()
    fresh.hold = False
    plain = await create_workflow_runner().execute(DEFINITION, functions=fresh.functions())
    assert resumed.status == plain.status == "completed"
    assert outcomes(resumed) == [
        (id, status, result)
        if id != "gate"
        else (id, status, {"success": True, "value": {"attempt": 2}})
        for id, status, result in outcomes(plain)
    ]
    snapshot = resumed.workflow.snapshot()
    assert snapshot["created"] == stored["created"]
    gate = snapshot["phases"][1]["tasks"][1]
    assert gate["attempts"] == 2
    assert resumed.durable is True


async def test_attempts_are_counted_on_from_the_snapshot() -> None:
    store = create_memory_workflow_store()
    parked = anyio.Event()
    seen: list[int] = []

    async def flaky(controller: TaskControllerInterface) -> str:
        seen.append(controller.attempt)
        if controller.attempt == 2:
            parked.set()
            await anyio.sleep_forever()
        raise RuntimeError(f"attempt {controller.attempt}")

    definition = workflow(phase("p", task("f", "flaky", retries=1)), id="counted")
    async with anyio.create_task_group() as group:

        async def go() -> None:
            await create_workflow_runner().execute(
                definition, functions={"flaky": flaky}, store=store
            )

        group.start_soon(go)
        await parked.wait()
        group.cancel_scope.cancel()
    result = await create_workflow_runner().execute(
        definition, functions={"flaky": flaky}, store=store, resume=True
    )
    assert seen == [1, 2, 3, 4]
    assert result.results[0].result["error"]["message"] == "attempt 4"
    assert result.workflow.snapshot()["phases"][0]["tasks"][0]["attempts"] == 4


async def test_failed_and_skipped_tasks_run_again() -> None:
    store = create_memory_workflow_store()
    runs: Counter[str] = Counter()
    broken = True

    def work(controller: TaskControllerInterface) -> str:
        runs[controller.task.id] += 1
        if controller.task.id == "b" and broken:
            raise RuntimeError("down")
        return controller.task.id

    definition = workflow(
        phase("one", task("a", "work"), task("b", "work"), concurrency=1),
        phase("two", task("c", "work")),
        bail=True,
    )
    first = await create_workflow_runner().execute(
        definition, functions={"work": work}, store=store
    )
    assert (first.status, statuses(first.workflow.snapshot())["c"]) == ("failed", "skipped")
    broken = False
    second = await create_workflow_runner().execute(
        definition, functions={"work": work}, store=store, resume=True
    )
    assert second.status == "completed"
    assert runs == {"a": 1, "b": 2, "c": 1}


async def test_resuming_a_finished_run_runs_nothing() -> None:
    store = create_memory_workflow_store()
    runs: list[str] = []
    functions = {"work": lambda controller: runs.append(controller.task.id)}
    definition = workflow(phase("p", task("a", "work")))
    first = await create_workflow_runner().execute(definition, functions=functions, store=store)
    again = await create_workflow_runner().execute(
        definition, functions=functions, store=store, resume=True
    )
    assert runs == ["a"]
    assert again.results == first.results


async def test_without_a_stored_snapshot_resume_runs_from_the_start() -> None:
    store = create_memory_workflow_store()
    result = await create_workflow_runner().execute(
        workflow(phase("p", task("a"))), store=store, resume=True
    )
    assert (result.status, len(result.results)) == ("completed", 1)


@pytest.mark.parametrize(
    "changed",
    [
        workflow(phase("one", task("a", "work"), task("b", "work")), id="resumable"),
        workflow(phase("one", task("a", "work")), phase("two"), id="resumable", bail=True),
        {**DEFINITION, "name": "Renamed"},
    ],
    ids=["fewer phases", "other bail", "renamed"],
)
async def test_a_snapshot_of_another_tree_is_refused(changed: dict[str, Any]) -> None:
    store = RecordingStore()
    harness = Harness()
    harness.hold = False
    await create_workflow_runner().execute(DEFINITION, functions=harness.functions(), store=store)
    writes = len(store.writes)
    with pytest.raises(WorkflowError) as caught:
        await create_workflow_runner().execute(
            changed, functions=harness.functions(), store=store, resume=True
        )
    assert caught.value.code == "RESUME"
    assert str(caught.value) == "the stored snapshot of workflow 'resumable' has a different tree"
    assert len(store.writes) == writes


async def test_an_unreadable_or_malformed_stored_snapshot_is_refused() -> None:
    class Unreadable(RecordingStore):
        async def get(self, id: str) -> WorkflowSnapshot | None:
            raise OSError("disk gone")

    with pytest.raises(WorkflowError) as caught:
        await create_workflow_runner().execute(
            workflow(phase("p", task("a"))), store=Unreadable(), resume=True
        )
    assert (caught.value.code, str(caught.value)) == (
        "RESUME",
        "cannot read the stored snapshot of workflow 'wf': disk gone",
    )

    class Tampered(RecordingStore):
        async def get(self, id: str) -> WorkflowSnapshot | None:
            return {"id": id}  # type: ignore[typeddict-item]

    store = Tampered()
    with pytest.raises(WorkflowError) as restore:
        await create_workflow_runner().execute(
            workflow(phase("p", task("a"))), store=store, resume=True
        )
    assert (restore.value.code, store.writes) == ("RESTORE", [])
