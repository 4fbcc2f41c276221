"""A run's lease: one runner at a time runs a workflow id, in one process or across processes
on one SQLite file or one PostgreSQL schema, and a dead runner's lease is taken over."""

from __future__ import annotations

import contextlib
import json
import random
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from database.conftest import drop_schema
from orkestrel.database import create_sqlite_driver
from orkestrel.workflow import (
    WorkflowError,
    WorkflowLeaseInterface,
    WorkflowStoreInterface,
    create_database_workflow_store,
    create_workflow_runner,
)
from workflow.samples import phase, task, workflow

pytestmark = pytest.mark.anyio

HELPER = Path(__file__).with_name("lease_run.py")


async def test_a_second_runner_of_a_running_workflow_is_refused_with_lease(
    store: WorkflowStoreInterface,
) -> None:
    started = anyio.Event()
    release = anyio.Event()

    async def hold(controller: Any) -> str:
        started.set()
        await release.wait()
        return "done"

    definition = workflow(phase("p", task("a", "hold")), id="job")
    runner = create_workflow_runner()
    results: list[Any] = []

    async def first() -> None:
        results.append(await runner.execute(definition, functions={"hold": hold}, store=store))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(first)
            await started.wait()
            with pytest.raises(WorkflowError) as caught:
                await runner.execute(definition, functions={"hold": hold}, store=store, resume=True)
            release.set()
    assert caught.value.code == "LEASE"
    assert str(caught.value).startswith(
        "workflow 'job' is being run by another runner (its lease expires in "
    )
    assert results[0].status == "completed"
    again = await runner.execute(definition, functions={"hold": hold}, store=store, resume=True)
    assert again.status == "completed"


async def test_a_dead_runners_lease_is_taken_over_once_it_expires(
    store: WorkflowStoreInterface,
) -> None:
    assert isinstance(store, WorkflowLeaseInterface)
    await store.acquire("job", "a runner that died", 200)
    definition = workflow(phase("p", task("a")), id="job")
    runner = create_workflow_runner()
    with pytest.raises(WorkflowError, match="is being run by another runner"):
        await runner.execute(definition, store=store)
    await anyio.sleep(0.3)
    result = await runner.execute(definition, store=store)
    assert (result.status, result.durable) == ("completed", True)


async def test_a_write_after_the_lease_was_taken_over_is_a_fault(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite3"
    mine = create_database_workflow_store(create_sqlite_driver(path))

    async def stalled(controller: Any) -> str:
        # The runner stalls past its lease, and another process takes the run over meanwhile.
        time.sleep(0.3)  # noqa: ASYNC251 - a stalled loop cannot renew the lease
        with contextlib.closing(sqlite3.connect(path)) as other, other:
            other.execute(
                "UPDATE workflow_entries SET entry = ? WHERE id = ?",
                [json.dumps({"owner": "another process", "expires": 1 << 60}), '["job","lease"]'],
            )
        return "late"

    definition = workflow(phase("p", task("a", "stalled")), phase("q", task("b")), id="job")
    result = await create_workflow_runner(lease_ttl=100).execute(
        definition, functions={"stalled": stalled}, store=mine
    )
    await mine.close()
    assert (result.status, result.durable) == ("stopped", False)
    assert result.fault == {
        "origin": "persistence",
        "checkpoint": "settlement",
        "message": "the lease on workflow 'job' was taken over by another runner",
        "task": "a",
        "attempt": 1,
    }


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_write_racing_a_takeover_of_its_expired_lease_lets_one_through(
    tmp_path: Path, backend: str
) -> None:
    """A runner's checkpoint renews its lease in the same transaction; another runner taking
    over the expired lease at that moment must either find it renewed (`LEASE`) or make the
    checkpoint fail (`LEASE`), never both go through with two runners holding the run."""
    from orkestrel.database import create_postgres_driver, create_postgres_pool
    from support.postgres import fresh_database

    ids = [f"job{n}" for n in range(30)]
    runner = create_workflow_runner()
    snapshots = {
        id: (
            await runner.execute(workflow(phase("p", *(task(f"t{k}") for k in range(100))), id=id))
        ).workflow.snapshot()
        for id in ids
    }
    through: dict[tuple[str, str], str] = {}
    with contextlib.ExitStack() as stack:
        if backend == "sqlite":
            drivers = [create_sqlite_driver(tmp_path / "runs.sqlite3") for _ in range(2)]
        else:
            # Pooled, as `serve --database` has it: each transaction on a connection of its own.
            pool = create_postgres_pool(stack.enter_context(fresh_database("lease")))
            stack.callback(pool.close)
            drivers = [create_postgres_driver(pool=pool) for _ in range(2)]
        mine, theirs = (create_database_workflow_store(driver) for driver in drivers)

        async def attempt(key: tuple[str, str], call: Any, delay: float) -> None:
            await anyio.sleep(delay)
            try:
                await call
                through[key] = "through"
            except WorkflowError as error:
                through[key] = error.code

        try:
            # Expired when the pairs start, and renewed by a checkpoint for as long again: longer
            # than the pairs take, so a take after a checkpoint finds the lease held.
            for id in ids:
                await mine.acquire(id, "mine", 1500)
            await anyio.sleep(1.6)
            # Each pair a few milliseconds apart, either one first, so some overlap.
            delays = random.Random(7)
            async with anyio.create_task_group() as group:
                for id in ids:
                    write, take = mine.set(snapshots[id]), theirs.acquire(id, "theirs", 60_000)
                    group.start_soon(attempt, (id, "write"), write, delays.uniform(0, 0.02))
                    group.start_soon(attempt, (id, "take"), take, delays.uniform(0, 0.02))
        finally:
            await mine.close()
            await theirs.close()
    outcomes = {(through[id, "write"], through[id, "take"]) for id in ids}
    assert outcomes <= {("through", "LEASE"), ("LEASE", "through")}


def run_helper(store: str, counter: Path, name: str, rival: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HELPER), store, str(counter), name, rival],
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(params=["sqlite", "postgres"])
def shared_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "runs.sqlite3")
        return
    dsn = request.getfixturevalue("postgres_dsn")
    schema = f"w_{uuid.uuid4().hex[:16]}"
    yield f"{dsn}#{schema}"
    drop_schema(dsn, schema)


def test_two_processes_resuming_one_run_run_each_pending_task_once(
    shared_store: str, tmp_path: Path
) -> None:
    counter = tmp_path / "counter.txt"
    setup = run_helper(shared_store, counter, "setup", "")
    out, _ = setup.communicate(timeout=60)
    assert json.loads(out) == {"status": "failed"}
    counter.write_text("")
    left = run_helper(shared_store, counter, "left", "right")
    right = run_helper(shared_store, counter, "right", "left")
    answers = sorted(
        (json.loads(process.communicate(timeout=60)[0]) for process in (left, right)),
        key=lambda answer: "code" in answer,
    )
    ran = counter.read_text().split("\n")[:-1]
    assert answers[0] == {"status": "completed", "count": 8}
    assert answers[1]["code"] == "LEASE"
    assert answers[1]["message"].startswith(
        "workflow 'shared' is being run by another runner (its lease expires in "
    )
    tasks = [line.split()[0] for line in ran]
    assert sorted(tasks) == ["gate"] + [f"t{i}" for i in range(7)]
    assert len({line.split()[1] for line in ran}) == 1
