"""Aborts really stop the running statement, on every engine, and roll its work back."""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import anyio
import anyio.to_thread
import pytest

from orkestrel.abort import AbortController
from orkestrel.database import (
    DatabaseError,
    PooledPostgresDriver,
    create_database,
    create_postgres_driver,
    create_postgres_pool,
    database_thread_limiter,
)
from orkestrel.timeout import create_timeout
from support.bounded import bounded, watchdogs_left

from .conftest import MakeDriver, drop_schema

pytestmark = pytest.mark.anyio

ENDLESS = (
    "WITH RECURSIVE c(x) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT x + 1 FROM c "
    "WHERE x < 1000000000000) SELECT count(*) FROM c"
)
FINITE = (
    "WITH RECURSIVE c(x) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT x + 1 FROM c "
    "WHERE x < 3000000) SELECT count(*) FROM c"
)
TABLES = {"log": {"id": "string", "line": "string"}}


@pytest.fixture
async def database(make_driver: MakeDriver) -> Any:
    database = create_database(tables=TABLES, driver=make_driver())
    await database.open()
    yield database
    await database.close()


async def test_a_timeout_interrupts_an_endless_query(database: Any) -> None:
    timeout = create_timeout(ms=200)
    timeout.start()
    with pytest.raises(DatabaseError) as caught:
        await database.driver.run(lambda s: s.rows(ENDLESS), write=False, signal=timeout.signal)
    assert caught.value.code == "ABORTED"
    assert await database.table("log").count() == 0


async def test_an_interrupted_write_leaves_nothing_behind(database: Any) -> None:
    log = database.table("log")
    await log.add({"id": "before", "line": "kept"})
    insert = database.driver.dialect
    sql = f"INSERT INTO {insert.table('log')} VALUES ({insert.mark}, {insert.mark})"

    def work(session: Any) -> Any:
        for i in range(100):
            session.run(sql, [f"row{i}", "lost"])
        return session.rows(ENDLESS)

    timeout = create_timeout(ms=200)
    timeout.start()
    with pytest.raises(DatabaseError) as caught:
        await database.driver.run(work, write=True, signal=timeout.signal)
    assert caught.value.code == "ABORTED"
    assert await log.keys() == ["before"]
    await log.add({"id": "after", "line": "the connection still works"})
    assert await log.count() == 2


async def test_cancelling_the_awaiting_task_interrupts_the_statement(database: Any) -> None:
    with anyio.move_on_after(0.2) as scope:
        await database.driver.run(lambda s: s.rows(ENDLESS), write=False)
    assert scope.cancelled_caught
    assert await database.table("log").count() == 0


async def test_an_already_aborted_signal_touches_nothing(database: Any) -> None:
    controller = AbortController()
    controller.abort("stop")
    log = database.table("log")
    with pytest.raises(DatabaseError) as caught:
        await log.add({"id": "x", "line": "never"}, signal=controller.signal)
    assert caught.value.code == "ABORTED"
    with pytest.raises(DatabaseError):
        await log.records(signal=controller.signal)
    assert await log.count() == 0


async def test_an_abort_while_queued_does_not_interrupt_the_running_call(database: Any) -> None:
    if isinstance(database.driver, PooledPostgresDriver):
        pytest.skip("a pooled driver queues no call behind another: each borrows a connection")
    results: dict[str, Any] = {}

    async def long_call() -> None:
        rows = await database.driver.run(lambda s: s.rows(FINITE), write=False)
        results["long"] = rows[0][0]

    async def queued_call() -> None:
        # Queue behind the long call only once it holds the connection, however loaded the
        # machine is, so the order of the two is certain.
        while not database.driver._lock.locked():  # noqa: ASYNC110 (a thread holds it)
            await anyio.sleep(0.005)
        await anyio.sleep(0.05)
        timeout = create_timeout(ms=50)
        timeout.start()
        try:
            await database.table("log").count(signal=timeout.signal)
        except DatabaseError as error:
            results["queued"] = error.code
        else:
            results["queued"] = "finished"

    async with anyio.create_task_group() as group:
        group.start_soon(long_call)
        group.start_soon(queued_call)
    assert results["long"] == 3000000
    assert results["queued"] == "ABORTED"


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_aborts_work_under_trio(database: Any) -> None:
    timeout = create_timeout(ms=100)
    timeout.start()
    with pytest.raises(DatabaseError) as caught:
        await database.driver.run(lambda s: s.rows(ENDLESS), write=False, signal=timeout.signal)
    assert caught.value.code == "ABORTED"


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_thousand_cancellations_at_random_moments_release_everything(
    make_driver: MakeDriver, backend: str
) -> None:
    chance = random.Random(7)
    delays = (0.0, 0.0, 0.00002, 0.0001, 0.0005, 0.002)

    async def storm() -> tuple[int, int]:
        database = create_database(tables=TABLES, driver=make_driver())
        log = database.table("log")
        await log.add({"id": "seed", "line": "kept"})
        for index in range(1000):
            with anyio.move_on_after(chance.choice(delays)):
                if index % 3:
                    await log.count()
                else:
                    await log.set({"id": f"r{index}", "line": "maybe"})
        with anyio.fail_after(30):
            counted = await log.count()
            await log.set({"id": "after", "line": "the connection still works"})
        borrowed = (
            anyio.to_thread.current_default_thread_limiter().borrowed_tokens
            + database_thread_limiter().borrowed_tokens
        )
        await database.close()
        return counted, borrowed

    counted, borrowed = bounded(storm, 120, backend)
    assert counted >= 1
    assert borrowed == 0
    assert watchdogs_left() == []


async def test_a_late_cancel_never_stops_the_next_borrower_of_a_pooled_connection(
    postgres_dsn: str,
) -> None:
    # One connection, and a cancel that takes 0.4 s on its way: the aborted call's statement
    # ends first, and before the fix its connection went back to the pool and the cancel
    # stopped the next call's statement there (SQLSTATE 57014).
    pool = create_postgres_pool(postgres_dsn, size=1, name="orkestrel-late-cancel")
    schema = f"late_{uuid.uuid4().hex[:12]}"
    driver = create_postgres_driver(pool=pool, schema=schema)
    sent = driver._interrupt

    def late(connection: Any) -> None:
        time.sleep(0.4)
        sent(connection)

    driver._interrupt = late  # type: ignore[method-assign]
    controller = AbortController()
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_abort_after, controller, 0.05)
            with pytest.raises(DatabaseError) as caught:
                await driver.run(
                    lambda s: s.rows("SELECT pg_sleep(0.2)"), write=False, signal=controller.signal
                )
        assert caught.value.code == "ABORTED"
        rows = await driver.run(lambda s: s.rows("SELECT pg_sleep(0.6), 7"), write=False)
        assert [row[-1] for row in rows] == [7]
    finally:
        await driver.close()
        pool.close()
        drop_schema(postgres_dsn, schema)


async def _abort_after(controller: AbortController, seconds: float) -> None:
    await anyio.sleep(seconds)
    controller.abort()
