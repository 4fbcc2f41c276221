"""The bounds of `DurableEventStore`, the events kept in the store of the workflow runs (a
SQLite file, or PostgreSQL) for clients that reconnect with `Last-Event-ID`: per stream, in
bytes over every session, and in time, the old rows deleted."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import create_database, create_postgres_driver, create_sqlite_driver
from orkestrel.mcp.constants import EVENTS_TABLE
from orkestrel.mcp.durable_events import EVENTS_COLUMNS, EVENTS_INDEXES, DurableEventStore
from orkestrel.mcp.event_store import EventBounds
from support.postgres import fresh_database

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "postgres"])
async def database(request: Any, tmp_path: Path) -> AsyncIterator[Any]:
    if request.param == "sqlite":
        driver = create_sqlite_driver(tmp_path / "runs.sqlite3")
        yield create_database(
            tables={EVENTS_TABLE: EVENTS_COLUMNS}, indexes=EVENTS_INDEXES, driver=driver
        )
        return
    with fresh_database("bounds") as dsn:
        driver = create_postgres_driver(dsn, schema=f"s_{uuid.uuid4().hex[:8]}")
        yield create_database(
            tables={EVENTS_TABLE: EVENTS_COLUMNS}, indexes=EVENTS_INDEXES, driver=driver
        )


async def keep(
    store: DurableEventStore, session: str, stream: str, count: int, size: int
) -> list[int]:
    return [await store.keep(session, stream, {"n": n}, size) for n in range(count)]


async def test_a_stream_keeps_its_last_events_and_deletes_the_rest(database: Any) -> None:
    store = DurableEventStore(database, EventBounds(per_stream=3), clock=Clock())
    try:
        first, *rest = await keep(store, "a", "7", 5, 10)
        other = await keep(store, "a", "8", 2, 10)
        assert await store.lookup("a", first) is None
        later = await store.following("a", rest[-3])
        assert [number for number, _ in later] == rest[-2:]
        assert [event.message for _, event in later] == [{"n": 3}, {"n": 4}]
        assert await store.count() == 3 + len(other)
        assert await store.lookup("b", rest[-1]) is None  # another session's id
    finally:
        await store.close()


async def test_the_byte_bound_deletes_the_oldest_events_of_every_session(database: Any) -> None:
    store = DurableEventStore(database, EventBounds(max_bytes=100), clock=Clock())
    try:
        old = await keep(store, "a", "1", 5, 20)
        new = await keep(store, "b", "1", 3, 20)
        found = [await store.lookup("a", number) is not None for number in old]
        assert found == [False] * 3 + [True] * 2
        assert all([await store.lookup("b", number) is not None for number in new])
        assert await store.count() == 5
    finally:
        await store.close()


async def test_an_event_expires_after_its_ttl_and_is_deleted(database: Any) -> None:
    clock = Clock()
    store = DurableEventStore(database, EventBounds(ttl=10), clock=clock)
    try:
        (old,) = await keep(store, "a", "1", 1, 5)
        clock.now += 11
        assert await store.lookup("a", old) is None
        assert await store.count() == 1
        (new,) = await keep(store, "a", "1", 1, 5)
        assert await store.count() == 1
        assert await store.lookup("a", new) is not None
    finally:
        await store.close()


async def test_a_resumed_stream_is_told_apart_from_the_others(database: Any) -> None:
    store = DurableEventStore(database, clock=Clock())
    try:
        (number,) = await keep(store, "a", "7", 1, 5)
        await keep(store, "a", "8", 1, 5)
        await store.mark_resumed("a", number)
        assert await store.was_resumed("a", "7")
        assert not await store.was_resumed("a", "8")
        assert not await store.was_resumed("b", "7")
    finally:
        await store.close()


def test_bounds_that_are_not_bounds_are_refused() -> None:
    for bounds, line in (
        ({"per_stream": 0}, "per_stream must be a positive integer, got 0"),
        ({"max_bytes": True}, "max_bytes must be a positive integer, got True"),
        ({"ttl": 0}, "ttl must be a positive number of seconds, got 0"),
    ):
        with pytest.raises(ValueError, match=f"^{line}$"):
            EventBounds(**bounds)
