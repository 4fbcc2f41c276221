"""Per-task overhead of the workflow runner against a bare anyio task group.

1,000 no-op async functions, at most 50 at a time: run by a bare `anyio` task group gated by a
semaphore (the floor), by the runner without a store, with a memory store and with a SQLite
store (every required checkpoint written, one transaction each).

Run: `pytest benches/bench_workflow.py -c benches/pytest.ini` for pytest-benchmark tables, or
`python benches/bench_workflow.py [rounds]` for the interleaved rounds recorded in RESULTS.md.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.database import create_sqlite_driver
from orkestrel.workflow import (
    WorkflowStoreInterface,
    create_database_workflow_store,
    create_memory_workflow_store,
    create_workflow_runner,
)

TASKS = 1000
CONCURRENCY = 50


async def noop(controller: Any) -> None:
    return None


DEFINITION = {
    "id": "bench",
    "name": "Bench",
    "phases": [
        {
            "id": "all",
            "name": "All",
            "concurrency": CONCURRENCY,
            "tasks": [
                {"id": f"t{index}", "name": "t", "behavior": "noop"} for index in range(TASKS)
            ],
        }
    ],
}
FUNCTIONS = {"noop": noop}
RUNNER = create_workflow_runner()


async def bare() -> None:
    gate = anyio.Semaphore(CONCURRENCY)

    async def one() -> None:
        async with gate:
            await noop(None)

    async with anyio.create_task_group() as group:
        for _ in range(TASKS):
            group.start_soon(one)


async def runner(store: WorkflowStoreInterface | None = None) -> None:
    result = await RUNNER.execute(DEFINITION, functions=FUNCTIONS, store=store)
    assert len(result.results) == TASKS


def sqlite_store(folder: Path) -> WorkflowStoreInterface:
    return create_database_workflow_store(create_sqlite_driver(folder / "runs.sqlite3"))


@pytest.mark.benchmark(group="1,000 no-op tasks, concurrency 50")
def bench_bare_task_group(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    benchmark(lambda: loop.run_until_complete(bare()))


@pytest.mark.benchmark(group="1,000 no-op tasks, concurrency 50")
def bench_runner_no_store(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    benchmark(lambda: loop.run_until_complete(runner()))


@pytest.mark.benchmark(group="1,000 no-op tasks, concurrency 50")
def bench_runner_memory_store(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    store = create_memory_workflow_store()
    benchmark(lambda: loop.run_until_complete(runner(store)))


@pytest.mark.benchmark(group="1,000 no-op tasks, concurrency 50")
def bench_runner_sqlite_store(
    benchmark: Any, loop: asyncio.AbstractEventLoop, tmp_path: Path
) -> None:
    store = sqlite_store(tmp_path)
    benchmark.pedantic(lambda: loop.run_until_complete(runner(store)), rounds=3, iterations=1)


def main(rounds: int) -> None:
    loop = asyncio.new_event_loop()
    folder = Path(tempfile.mkdtemp())
    memory = create_memory_workflow_store()
    sqlite = sqlite_store(folder)
    cases: dict[str, Callable[[], Awaitable[None]]] = {
        "bare anyio task group": bare,
        "runner, no store": runner,
        "runner, memory store": lambda: runner(memory),
        "runner, SQLite store": lambda: runner(sqlite),
    }
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for case in cases.values():  # warm up
        loop.run_until_complete(case())
    for _ in range(rounds):
        for name, case in cases.items():
            start, used = time.perf_counter(), time.process_time()
            loop.run_until_complete(case())
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - used)
    floor = statistics.median(wall["bare anyio task group"])
    cpu_floor = statistics.median(cpu["bare anyio task group"])
    print(f"{TASKS} no-op tasks, concurrency {CONCURRENCY}, medians of {rounds} interleaved rounds")
    print("| case | wall | per task | overhead per task vs bare | CPU overhead per task |")
    print("| --- | --- | --- | --- | --- |")
    for name in cases:
        median = statistics.median(wall[name])
        per = median / TASKS * 1e6
        extra = (median - floor) / TASKS * 1e6
        used = (statistics.median(cpu[name]) - cpu_floor) / TASKS * 1e6
        cells = [f"{median * 1e3:,.1f} ms", f"{per:,.1f} µs", f"{extra:,.1f} µs", f"{used:,.1f} µs"]
        print(f"| {name} | {' | '.join(cells)} |")
    loop.run_until_complete(sqlite.close())  # type: ignore[attr-defined]
    loop.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
