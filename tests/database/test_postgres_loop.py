"""PostgreSQL lone reads run on the event loop: the same answers as in a worker thread, on
asyncio and trio, and a cancelled or aborted read still stops its statement on the server."""

from __future__ import annotations

import contextlib
import math
import socket
from collections.abc import Iterator
from typing import Any
from unittest import mock

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkestrel.database import (
    DatabaseError,
    PooledPostgresDriver,
    create_database,
    create_postgres_driver,
    create_postgres_pool,
)
from orkestrel.database.drivers import base, postgres, postgres_loop
from orkestrel.database.drivers.postgres import PostgresDriver
from orkestrel.database.operation import LoneRead
from orkestrel.timeout import create_timeout
from support.bounded import bounded, watchdogs_left

from .test_abort import ENDLESS
from .test_properties import TABLES, postgres_schema, queries, rows

__all__ = ["postgres_schema"]

BACKENDS = ["asyncio", "trio"]


@contextlib.contextmanager
def no_worker_threads() -> Iterator[None]:
    """Fails any unit of work sent to a worker thread."""

    async def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a lone read went to a worker thread")

    with mock.patch.object(base, "run_in_database_thread", refuse):
        yield


@contextlib.contextmanager
def worker_threads_only(driver: PostgresDriver) -> Iterator[None]:
    """Sends every lone read to a worker thread, as before reads ran on the loop."""

    async def decline(*args: Any) -> tuple[bool, None]:
        return False, None

    with mock.patch.object(driver, "_read_on_loop", decline):
        yield


async def answers(table: Any, query: dict[str, Any]) -> list[Any]:
    return [
        await table.records(query),
        await table.count(query),
        await table.aggregate("sum", "n", query),
        await table.aggregate("average", "id", query),
    ]


async def both_ways(driver: PostgresDriver, data: list[dict[str, Any]], query: Any) -> None:
    database = create_database(tables=TABLES, driver=driver)
    table = database.table("t")
    try:
        await table.clear()
        await table.add(data)
        with worker_threads_only(driver):
            threaded = await answers(table, query)
        with no_worker_threads():
            looped = await answers(table, query)
        assert looped == threaded
    finally:
        await database.close()


@settings(max_examples=60, deadline=None)
@given(data=rows(), query=queries(), backend=st.sampled_from(BACKENDS))
def test_a_lone_read_on_the_loop_answers_as_a_worker_thread_does(
    postgres_schema: Any, data: list[dict[str, Any]], query: dict[str, Any], backend: str
) -> None:
    dsn, schema = postgres_schema
    driver = create_postgres_driver(dsn, schema=schema)
    assert isinstance(driver, PostgresDriver)
    anyio.run(both_ways, driver, data, query, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cancelled_lone_read_stops_its_statement_on_the_server(
    postgres_schema: Any, backend: str
) -> None:
    dsn, schema = postgres_schema

    async def cancel() -> list[Any]:
        driver = create_postgres_driver(dsn, schema=schema)
        database = create_database(tables=TABLES, driver=driver)
        await database.open()
        try:
            with no_worker_threads():
                with anyio.move_on_after(0.2) as scope:
                    await driver.run(LoneRead(ENDLESS, [], list), write=False)
                assert scope.cancelled_caught
                # Only a statement the server stopped lets the connection answer again.
                return await driver.run(LoneRead("SELECT 7", [], list), write=False)
        finally:
            await database.close()

    assert bounded(cancel, 60, backend) == [(7,)]
    assert watchdogs_left() == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_aborted_lone_read_is_aborted_and_stopped_on_the_server(
    postgres_schema: Any, backend: str
) -> None:
    dsn, schema = postgres_schema

    async def abort() -> tuple[str, list[Any]]:
        driver = create_postgres_driver(dsn, schema=schema)
        database = create_database(tables=TABLES, driver=driver)
        await database.open()
        try:
            timeout = create_timeout(ms=200)
            timeout.start()
            with no_worker_threads(), pytest.raises(DatabaseError) as caught:
                await driver.run(LoneRead(ENDLESS, [], list), write=False, signal=timeout.signal)
            after = await driver.run(LoneRead("SELECT 7", [], list), write=False)
            return caught.value.code, after
        finally:
            await database.close()

    assert bounded(abort, 60, backend) == ("ABORTED", [(7,)])
    assert watchdogs_left() == []


@pytest.mark.anyio
async def test_a_failed_lone_read_raises_the_typed_error_and_leaves_the_connection_ready(
    postgres_schema: Any,
) -> None:
    dsn, schema = postgres_schema
    driver = create_postgres_driver(dsn, schema=schema)
    database = create_database(tables=TABLES, driver=driver)
    await database.open()
    try:
        with no_worker_threads():
            with pytest.raises(DatabaseError) as caught:
                await driver.run(LoneRead("SELECT 1 / 0", [], list), write=False)
            assert "\n" not in caught.value.message
            assert await driver.run(LoneRead("SELECT 7", [], list), write=False) == [(7,)]
    finally:
        await database.close()


def test_only_the_psycopg_lines_read_and_tested_are_driven_on_the_loop() -> None:
    psycopg = pytest.importorskip("psycopg")
    assert postgres_loop.line_of(psycopg.__version__) in postgres_loop.DRIVABLE_LINES
    assert postgres_loop.line_of("3.4.0.dev1") == (3, 4)
    assert postgres_loop.line_of("unknown") is None
    postgres_loop.loop_drivable.cache_clear()
    try:
        assert postgres_loop.loop_drivable()
        postgres_loop.loop_drivable.cache_clear()
        with mock.patch.object(psycopg, "__version__", "3.4.0"):
            assert not postgres_loop.loop_drivable()
    finally:
        postgres_loop.loop_drivable.cache_clear()


@pytest.mark.anyio
async def test_a_pooled_driver_reads_in_a_worker_thread_since_borrowing_may_block(
    postgres_schema: Any,
) -> None:
    dsn, schema = postgres_schema
    pool = create_postgres_pool(dsn, size=1, name="orkestrel-loop-test")
    try:
        driver = create_postgres_driver(schema=schema, pool=pool)
        assert isinstance(driver, PooledPostgresDriver)
        database = create_database(tables=TABLES, driver=driver)
        await database.open()
        try:

            async def refuse(*args: Any) -> Any:
                raise AssertionError("a pooled lone read ran on the loop")

            with mock.patch.object(postgres, "execute_on_loop", refuse):
                read = await driver.run(LoneRead("SELECT 7", [], list), write=False)
            assert read == [(7,)]
            with no_worker_threads(), pytest.raises(AssertionError, match="worker thread"):
                await driver.run(LoneRead("SELECT 7", [], list), write=False)
        finally:
            await database.close()
    finally:
        pool.close()


@contextlib.contextmanager
def inline_waits() -> Iterator[list[bool]]:
    """Records each inline wait's outcome: whether the answer came within the budget."""
    seen: list[bool] = []
    wait = postgres_loop._readable_within

    def recorded(fileno: int, seconds: float) -> bool:
        answered = wait(fileno, seconds)
        seen.append(answered)
        return answered

    with mock.patch.object(postgres_loop, "_readable_within", recorded):
        yield seen


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_quick_server_is_waited_for_inline_and_a_slow_one_by_the_loop(
    postgres_schema: Any, backend: str
) -> None:
    dsn, schema = postgres_schema

    async def reads() -> tuple[list[bool], list[bool], list[bool], int, list[Any]]:
        driver = create_postgres_driver(dsn, schema=schema)
        database = create_database(tables=TABLES, driver=driver)
        await database.open()
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                await anyio.sleep(0.01)
                ticks += 1

        try:
            with no_worker_threads():
                with inline_waits() as quick:
                    for _ in range(5):
                        await driver.run(LoneRead("SELECT 7", [], list), write=False)
                async with anyio.create_task_group() as group:
                    group.start_soon(tick)
                    with inline_waits() as slow:
                        # The loop waits once the budget is spent: other tasks run meanwhile.
                        slept = await driver.run(
                            LoneRead("SELECT 8 FROM pg_sleep(0.3)", [], list), write=False
                        )
                    group.cancel_scope.cancel()
                with inline_waits() as after:
                    # That server was slow of late: its next answers are the loop's to await.
                    answers = [
                        await driver.run(LoneRead("SELECT 9", [], list), write=False)
                        for _ in range(3)
                    ]
            return quick, slow, after, ticks, [slept, *answers]
        finally:
            await database.close()

    quick, slow, after, ticks, answers = bounded(reads, 60, backend)
    assert quick.count(True) >= 4, quick
    assert slow == [False]
    assert ticks >= 5
    assert after == []
    assert answers == [[(8,)], [(9,)], [(9,)], [(9,)]]


@pytest.mark.anyio
@pytest.mark.parametrize("inline", [0, -1.5])
async def test_no_read_is_waited_for_inline_when_the_budget_is_zero_or_less(
    postgres_schema: Any, inline: float
) -> None:
    dsn, schema = postgres_schema
    driver = create_postgres_driver(dsn, schema=schema, inline=inline)
    database = create_database(tables=TABLES, driver=driver)
    await database.open()
    try:
        with no_worker_threads(), inline_waits() as seen:
            for _ in range(3):
                assert await driver.run(LoneRead("SELECT 7", [], list), write=False) == [(7,)]
        assert seen == []
    finally:
        await database.close()


@pytest.mark.parametrize("inline", [math.inf, -math.inf, math.nan, "0.002", True, None])
def test_an_inline_budget_that_is_not_a_finite_number_is_refused(inline: Any) -> None:
    with pytest.raises(DatabaseError) as caught:
        create_postgres_driver("postgresql://127.0.0.1:1/none", inline=inline)
    assert caught.value.code == "VALIDATION"
    assert caught.value.message.startswith("inline must be a finite number of seconds, not ")
    assert "\n" not in caught.value.message


def test_a_huge_inline_budget_waits_as_poll_can() -> None:
    # Past poll's own limit (a C int of milliseconds) the wait is that limit, not an error.
    left, right = socket.socketpair()
    with left, right:
        right.send(b"x")
        assert postgres_loop._readable_within(left.fileno(), 1e300)
        left.recv(1)
        assert not postgres_loop._readable_within(left.fileno(), 0.001)
