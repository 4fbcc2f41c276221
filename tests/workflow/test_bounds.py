"""Resource bounds of a run: checkpoints that write what changed, a loop that stays free while
a big run checkpoints, and the bound on the bytes a run's answers add up to."""

from __future__ import annotations

import gc
import time
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.database import create_sqlite_driver
from orkestrel.workflow import (
    MAX_ANSWER_BYTES,
    WorkflowError,
    create_database_workflow_store,
    create_memory_workflow_store,
    create_workflow_runner,
)
from workflow.samples import phase, task, workflow

pytestmark = pytest.mark.anyio

PROC_IO = Path("/proc/self/io")


def written() -> int:
    """The bytes this process has handed to write calls so far (`wchar`)."""
    for line in PROC_IO.read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    raise AssertionError("no wchar in /proc/self/io")


def steps(count: int) -> dict[str, Any]:
    """`count` phases of one `read` task each: the flat form a model authors."""
    return workflow(*(phase(f"p{i}", task(f"t{i}", "read")) for i in range(count)), id="steps")


@pytest.mark.skipif(not PROC_IO.exists(), reason="counts bytes through /proc/self/io")
async def test_a_hundred_checkpointed_64_kib_answers_write_each_answer_about_once(
    tmp_path: Path,
) -> None:
    answer = "x" * 65_536

    async def read(controller: Any) -> str:
        return answer

    store = create_database_workflow_store(create_sqlite_driver(tmp_path / "runs.sqlite3"))
    before = written()
    result = await create_workflow_runner().execute(
        steps(100), functions={"read": read}, store=store
    )
    spent = written() - before
    stored = await store.get("steps")
    await store.close()
    assert (result.status, result.durable) == ("completed", True)
    assert stored == result.workflow.snapshot()
    # 100 answers are 6.5 MB; SQLite writes each page to its WAL and then to the file, and
    # each of the 301 checkpoints adds a few pages. A whole snapshot per checkpoint: > 600 MB.
    answers = 100 * len(answer)
    assert spent < 3 * answers + 4_000_000, f"{spent} bytes written for {answers} of answers"


async def test_two_stores_writing_one_run_in_turn_leave_the_last_snapshot_exactly(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.sqlite3"
    first = create_database_workflow_store(create_sqlite_driver(path))
    second = create_database_workflow_store(create_sqlite_driver(path))
    runner = create_workflow_runner()
    three = workflow(phase("p", task("a"), task("b"), task("c")), phase("q", task("d")), id="w")
    one = workflow(phase("p", task("a")), id="w")
    big = (await runner.execute(three)).workflow.snapshot()
    small = (await runner.execute(one)).workflow.snapshot()
    await first.set(big)
    await second.set(small)
    assert await first.get("w") == small
    big["updated"] += 1
    await first.set(big)
    assert await second.get("w") == big
    await second.set(small)
    await second.delete("w")
    assert await first.get("w") is None
    await first.close()
    await second.close()


async def test_a_finished_run_leaves_none_of_its_answers_in_the_store(tmp_path: Path) -> None:
    async def read(controller: Any) -> str:
        return controller.task.id * 1_000_000

    store = create_database_workflow_store(create_sqlite_driver(tmp_path / "runs.sqlite3"))
    gc.collect()
    tracemalloc.start()
    try:
        result = await create_workflow_runner().execute(
            steps(8), functions={"read": read}, store=store
        )
        assert result.status == "completed"
        del result
        gc.collect()
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    await store.close()
    # 16 MB of answers ran through; a store that remembered them would hold them all.
    assert kept < 4_000_000, f"{kept} bytes still held"


async def test_the_event_loop_keeps_answering_while_a_big_run_checkpoints(
    tmp_path: Path,
) -> None:
    answer = "y" * 1_000_000

    async def read(controller: Any) -> str:
        return answer

    store = create_database_workflow_store(create_sqlite_driver(tmp_path / "runs.sqlite3"))
    gaps: list[float] = []
    done = anyio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await anyio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last - 0.01)
            last = now

    async with anyio.create_task_group() as group:
        group.start_soon(ticker)
        result = await create_workflow_runner().execute(
            steps(30), functions={"read": read}, store=store
        )
        done.set()
    await store.close()
    assert result.status == "completed"
    # Generous: the point is that no checkpoint holds the loop for the whole snapshot.
    print(f"longest loop stall {max(gaps) * 1000:.1f} ms over {len(gaps)} ticks")
    assert max(gaps) < 1.0, f"the loop was held for {max(gaps):.3f} s"


async def test_an_answer_over_max_answer_bytes_fails_its_task_and_stops_the_run() -> None:
    async def read(controller: Any) -> str:
        return "z" * 400

    store = create_memory_workflow_store()
    runner = create_workflow_runner(max_answer_bytes=1_000)
    result = await runner.execute(steps(5), functions={"read": read}, store=store)
    assert result.status == "stopped"
    assert [item.status for item in result.results] == ["completed", "completed", "failed"]
    message = (
        "task 't2' answered 402 bytes of JSON, which would bring the run's answers to 1206 "
        "bytes, over max_answer_bytes (1000 bytes)"
    )
    assert result.results[2].result == {
        "success": False,
        "error": {"origin": "limit", "message": message},
    }
    assert result.fault == {
        "origin": "limit",
        "checkpoint": "settlement",
        "message": message,
        "task": "t2",
        "attempt": 1,
    }
    assert result.durable is True
    stored = await store.get("steps")
    assert stored is not None
    assert [p["tasks"][0]["status"] for p in stored["phases"]] == [
        "completed",
        "completed",
        "failed",
        "skipped",
        "skipped",
    ]


async def test_a_resumed_run_counts_the_answers_it_kept_against_max_answer_bytes() -> None:
    async def read(controller: Any) -> str:
        if controller.task.id == "t1":
            raise RuntimeError("down")
        return "z" * 400

    store = create_memory_workflow_store()
    definition = {**steps(3), "bail": True}
    first = await create_workflow_runner().execute(
        definition, functions={"read": read}, store=store
    )
    assert first.status == "failed"
    runner = create_workflow_runner(max_answer_bytes=700)
    again = await runner.execute(
        definition, functions={"read": lambda c: "z" * 400}, store=store, resume=True
    )
    assert again.status == "stopped"
    assert again.fault is not None
    assert again.fault["task"] == "t1"


@pytest.mark.parametrize("option", ["max_answer_bytes", "lease_ttl"])
@pytest.mark.parametrize("value", [0, -1, 1.5, True, "10"])
def test_runner_bounds_must_be_positive_whole_numbers(option: str, value: Any) -> None:
    with pytest.raises(WorkflowError, match=f"^{option} must be a whole number from 1 to"):
        create_workflow_runner(**{option: value})


def test_the_answer_bound_defaults_to_32_mib() -> None:
    assert MAX_ANSWER_BYTES == 32 * 1024 * 1024
    assert "max_answer_bytes=33554432" in repr(create_workflow_runner())
