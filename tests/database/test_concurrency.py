"""Concurrent callers on one database: tasks of one loop, and threads with loops of their own."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from orkestrel.database import DatabaseError, create_database, create_sqlite_driver

from .conftest import MakeDriver

pytestmark = pytest.mark.anyio

TABLES = {"events": {"id": "string", "n": "integer"}}


async def test_concurrent_tasks_serialise_on_one_connection(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    events = database.table("events")

    async def writer(start: int) -> None:
        for i in range(start, start + 20):
            await events.add({"id": f"e{i:04}", "n": i})

    async with anyio.create_task_group() as group:
        for start in range(0, 200, 20):
            group.start_soon(writer, start)
    assert await events.count() == 200
    assert await events.aggregate("sum", "n") == sum(range(200))
    await database.close()


async def test_threads_with_their_own_event_loops_share_a_database(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    events = database.table("events")
    await database.open()
    failures: list[BaseException] = []

    def thread(start: int) -> None:
        async def work() -> None:
            await events.add([{"id": f"t{start}-{i}", "n": i} for i in range(10)])
            await events.records({"limit": 5})

        try:
            anyio.run(work)
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=thread, args=(n,)) for n in range(4)]
    for item in threads:
        item.start()
    for item in threads:
        item.join()
    assert failures == []
    assert await events.count() == 40
    await database.close()


async def test_closing_during_use_fails_later_calls_cleanly(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    events = database.table("events")
    results: list[Any] = []

    started = anyio.Event()

    async def reader() -> None:
        for _ in range(100_000):
            try:
                results.append(await events.count())
            except DatabaseError as error:
                results.append(error.code)
                return
            started.set()
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        group.start_soon(reader)
        await started.wait()
        await database.close()
    assert results[0] == 0
    assert results[-1] == "CLOSED"
    assert set(results[:-1]) == {0}


async def test_calls_whose_inline_budget_runs_out_as_begin_ends_leave_no_transaction_open() -> None:
    # A budget no statement fits in: every inline call is stopped and run again in a worker
    # thread. SQLite calls the progress handler as a statement ends too, once the cached BEGIN's
    # step count crosses the handler's period, so a BEGIN that began fails as `interrupted`;
    # under load a real budget runs out there as well.
    driver = create_sqlite_driver(":memory:", inline=1e-9)
    database = create_database(tables=TABLES, driver=driver)
    events = database.table("events")

    async def writer(start: int) -> None:
        for i in range(start, start + 40):
            await events.add({"id": f"e{i:04}", "n": i})
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as group:
        for start in range(0, 400, 40):
            group.start_soon(writer, start)
    assert await events.count() == 400
    assert await events.aggregate("sum", "n") == sum(range(400))
    await database.close()
