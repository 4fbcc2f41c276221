"""SQLite table calls that fit the inline budget run on the event loop's own thread; a call
that outlives it, would wait for a lock, calls a pattern matcher or writes a big batch runs in a
worker thread instead, with the same answer, while the loop goes on with other tasks.

A call that needs a worker thread cannot finish while every database worker thread is taken, so
holding all of `database_thread_limiter()`'s tokens tells the two paths apart without timing.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from orkestrel.database import (
    INLINE_ROWS,
    Column,
    DatabaseError,
    create_database,
    create_memory_driver,
    create_sqlite_driver,
    database_thread_limiter,
)
from orkestrel.database.types import DatabaseInterface, DriverInterface

pytestmark = pytest.mark.anyio

TABLES = {"items": {"id": "string", "n": "integer", "text": Column("string", optional=True)}}
ROWS = [{"id": f"r{i:05}", "n": i, "text": f"text {i % 97}"} for i in range(200)]
STUCK = 0.3
"""Seconds a call that needs a worker thread is left waiting for one before it is given up."""
ROOMY = 30.0
"""An inline budget for tests of where a call runs rather than of the budget: on a loaded
machine a small call can lose the default 2 ms to the scheduler, and then rightly moves to a
worker thread."""


@asynccontextmanager
async def threads_taken() -> AsyncIterator[None]:
    """Takes every token of the database layer's worker-thread limiter."""
    limiter = database_thread_limiter()
    holders = [object() for _ in range(int(limiter.total_tokens))]
    for holder in holders:
        await limiter.acquire_on_behalf_of(holder)
    try:
        yield
    finally:
        for holder in holders:
            limiter.release_on_behalf_of(holder)


async def finishes_without_a_thread(call: Callable[[], Awaitable[Any]]) -> bool:
    """Whether `call` finishes while every worker thread is taken."""
    done = False
    async with threads_taken():
        with anyio.move_on_after(STUCK):
            await call()
            done = True
    return done


async def ticks_during(work: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    """Runs `work` beside a task that counts its turns; returns the answer and the turns taken
    while `work` ran."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        await anyio.lowlevel.checkpoint()
        before = ticks
        answer = await work()
        during = ticks - before
        group.cancel_scope.cancel()
    return answer, during


@asynccontextmanager
async def filled(driver: DriverInterface) -> AsyncIterator[DatabaseInterface]:
    """A database over `driver` holding `ROWS`, closed afterwards."""
    database = create_database(tables=TABLES, driver=driver)
    await database.table("items").add(ROWS)
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture(params=["memory", "sqlite"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    driver = (
        create_memory_driver()
        if request.param == "memory"
        else create_sqlite_driver(tmp_path / "inline.sqlite3")
    )
    async with filled(driver) as database:
        yield database


@pytest.fixture(params=["memory", "sqlite"])
async def roomy(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    """`database` with an inline budget no small call outlives, however loaded the machine."""
    where = ":memory:" if request.param == "memory" else tmp_path / "inline.sqlite3"
    async with filled(create_sqlite_driver(where, inline=ROOMY)) as database:
        yield database


async def test_small_calls_answer_on_the_loop_thread(roomy: DatabaseInterface) -> None:
    items = roomy.table("items")
    few = [{"id": f"new{i}", "n": i} for i in range(INLINE_ROWS)]
    calls: list[Callable[[], Awaitable[Any]]] = [
        lambda: items.get("r00001"),
        lambda: items.get(["r00001", "r00002", "missing"]),
        lambda: items.records(
            {"conditions": [{"column": "n", "operator": "below", "values": [9]}]}
        ),
        lambda: items.count(),
        lambda: items.aggregate("sum", "n"),
        lambda: items.add(few),
        lambda: items.update("r00003", {"text": "changed"}),
        lambda: items.remove("r00004"),
        lambda: items.set({"id": "r00005", "n": 5, "text": None}),
    ]
    for call in calls:
        assert await finishes_without_a_thread(call)
    assert await items.count() == len(ROWS) + INLINE_ROWS - 1
    assert (await items.get("r00003") or {})["text"] == "changed"
    assert await items.get("r00005") == {"id": "r00005", "n": 5}
    assert [row["id"] for row in await items.records({"limit": 3})] == ["new0", "new1", "new10"]


async def test_calls_that_must_not_run_inline_wait_for_a_worker_thread(
    database: DatabaseInterface, tmp_path: Path
) -> None:
    items = database.table("items")
    batch = [{"id": f"big{i:04}", "n": i} for i in range(INLINE_ROWS + 1)]
    like = {"conditions": [{"column": "text", "operator": "like", "values": ["%9%"]}]}
    glob = {"conditions": [{"column": "text", "operator": "glob", "values": ["*9*"]}]}
    assert not await finishes_without_a_thread(lambda: items.add(batch))
    assert not await finishes_without_a_thread(lambda: items.records(like))
    assert not await finishes_without_a_thread(lambda: items.count(glob))
    assert not await finishes_without_a_thread(
        lambda: database.transaction(lambda t: t.table("items").count())
    )
    # Given up while waiting, the batch wrote nothing; with a thread free, each call answers.
    assert await items.count() == len(ROWS)
    assert len(await items.add(batch)) == INLINE_ROWS + 1
    assert await items.count(like) == len([r for r in ROWS if "9" in r["text"]])


async def test_a_driver_with_no_inline_budget_always_uses_a_worker_thread(tmp_path: Path) -> None:
    database = create_database(
        tables=TABLES, driver=create_sqlite_driver(tmp_path / "threads.sqlite3", inline=0)
    )
    await database.table("items").add(ROWS[:3])
    assert not await finishes_without_a_thread(lambda: database.table("items").get("r00001"))
    assert await database.table("items").get("r00001") == ROWS[1]
    await database.close()


async def test_work_that_outlives_the_budget_moves_to_a_thread_with_the_same_answer(
    tmp_path: Path,
) -> None:
    rows = [{"id": f"k{i:06}", "n": (i * 7919) % 50_000, "text": f"{i}"} for i in range(50_000)]
    query = {"order": [{"column": "n", "direction": "descending"}]}
    answers = []
    for budget in (1e-6, 0.0):
        database = create_database(
            tables=TABLES,
            driver=create_sqlite_driver(tmp_path / f"b{budget}.sqlite3", inline=budget),
        )
        await database.table("items").add(rows)
        table = database.table("items")
        answer, during = await ticks_during(functools.partial(table.records, query))
        answers.append(answer)
        # The loop kept running other tasks while the sort ran in a worker thread.
        assert during > 10
        await database.close()
    assert answers[0] == answers[1]
    assert [row["n"] for row in answers[0][:2]] == [49_999, 49_998]


async def test_a_write_never_waits_for_another_writer_on_the_loop_thread(tmp_path: Path) -> None:
    path = tmp_path / "locked.sqlite3"
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path, inline=ROOMY))
    items = database.table("items")
    await items.add(ROWS[:2])
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    ticks = 0
    added: list[Any] = []

    async def add() -> None:
        added.append(await items.add({"id": "late", "n": 1}))

    async with anyio.create_task_group() as group:
        group.start_soon(add)
        for _ in range(50):
            ticks += 1
            await anyio.sleep(0.002)
        # The add waits for the other writer in a worker thread; the loop went on meanwhile.
        assert added == []
        other.execute("COMMIT")
    other.close()
    assert ticks == 50
    assert added == ["late"]
    assert await items.get("late") == {"id": "late", "n": 1}
    # The next small call runs inline again and no longer waits.
    assert await finishes_without_a_thread(lambda: items.get("late"))
    await database.close()


async def test_a_call_cancelled_before_it_runs_writes_nothing(database: DatabaseInterface) -> None:
    items = database.table("items")
    with anyio.CancelScope() as scope:
        scope.cancel()
        await items.add({"id": "never", "n": 0})
    assert scope.cancelled_caught
    assert await items.get("never") is None


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_inline_calls_run_under_trio(tmp_path: Path) -> None:
    database = create_database(
        tables=TABLES, driver=create_sqlite_driver(tmp_path / "trio.sqlite3", inline=ROOMY)
    )
    items = database.table("items")
    await items.add(ROWS[:5])
    assert await finishes_without_a_thread(lambda: items.get("r00002"))
    assert await items.records({"limit": 2}) == ROWS[:2]
    await database.close()


async def test_inline_calls_in_a_row_let_other_tasks_run(database: DatabaseInterface) -> None:
    items = database.table("items")

    async def reads() -> None:
        for _ in range(500):
            await items.records({"limit": 50})

    _, during = await ticks_during(reads)
    # 500 reads hold the loop far longer than one inline budget, so they yielded in between.
    assert during >= 2


async def test_a_write_stopped_by_the_budget_is_rolled_back_and_written_once(
    tmp_path: Path,
) -> None:
    database = create_database(
        tables=TABLES, driver=create_sqlite_driver(tmp_path / "w.sqlite3", inline=1e-9)
    )
    items = database.table("items")
    batch = [{"n": i, "text": "x" * 1000} for i in range(INLINE_ROWS)]
    keys = await items.add(batch)
    # The first, inline attempt was stopped and rolled back; the worker thread wrote each row
    # once, under the keys it answered with.
    assert len(set(keys)) == INLINE_ROWS
    assert await items.count() == INLINE_ROWS
    assert sorted(row["id"] for row in await items.records()) == sorted(keys)
    # It did need the worker thread: with none free it waits, and given up it wrote nothing.
    assert not await finishes_without_a_thread(lambda: items.add(batch))
    assert await items.count() == INLINE_ROWS
    # A write that breaks a rule fails the same way on either path.
    with pytest.raises(DatabaseError) as caught:
        await items.add([{"id": "dup", "n": 1}, {"id": "dup", "n": 2}])
    assert caught.value.code == "CONFLICT"
    assert await items.get("dup") is None
    await database.close()
