"""Databases on one PostgreSQL under hostile use: definitions changed through another server,
storage changed behind the servers' backs, and one client flooding the database layer."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from support.mcp_client import Session, connect, text
from support.postgres import fresh_database
from support.serve_process import ServeProcess

pytestmark = pytest.mark.anyio

ITEMS = {"items": {"columns": {"n": "integer"}}}
ORDERS = {"orders": {"columns": {"total": "number"}}}
RAW = ("SELECT", "INSERT", "LINE ", "FROM ", "postgres failed", "psycopg", "orkestrel_shop")


@pytest.fixture
def dsn() -> Iterator[str]:
    with fresh_database("hostile") as name:
        yield name


async def call(session: Session, **arguments: Any) -> Any:
    """A database call's value, or `("error", message)`."""
    result = await session.call_tool("database", arguments)
    if result.get("isError"):
        return ("error", text(result))
    return result.get("structuredContent", json.loads(text(result)))


def assert_typed_line(answer: Any, *words: str) -> str:
    """The answer is an error of one line that names `words` and holds no SQL or driver text."""
    assert isinstance(answer, tuple), answer
    message = str(answer[1])
    assert "\n" not in message.strip(), message
    for raw in RAW:
        assert raw not in message, message
    for word in words:
        assert word in message, message
    return message


async def test_a_database_recreated_through_one_server_is_current_on_the_other(
    serve: Any, dsn: str
) -> None:
    options = ("--database", dsn, "--pool-size", "4", "--tools", "database")
    async with serve(*options) as a, serve(*options) as b:
        assert await call(a, operation="create", id="shop", tables=ITEMS) == {
            "id": "shop",
            "tables": ["items"],
        }
        listed = await call(b, operation="tables", id="shop")
        assert [table["name"] for table in listed["tables"]] == ["items"]
        assert await call(b, operation="add", id="shop", table="items", row={"id": "i1", "n": 1})

        assert (await call(a, operation="destroy", id="shop"))["destroyed"] is True
        await call(a, operation="create", id="shop", tables=ORDERS)

        listed = await call(b, operation="tables", id="shop")
        assert [table["name"] for table in listed["tables"]] == ["orders"]
        row = {"id": "o1", "total": 2.5}
        assert await call(b, operation="add", id="shop", table="orders", row=row) == {"key": "o1"}
        read = await call(b, operation="records", id="shop", table="orders")
        assert read["rows"] == [row]
        gone = await call(b, operation="records", id="shop", table="items")
        assert_typed_line(gone, "items")

        # The same table name with other columns: the new columns are the ones in force.
        await call(a, operation="destroy", id="shop")
        await call(
            a, operation="create", id="shop", tables={"orders": {"columns": {"x": "string"}}}
        )
        added = await call(
            b, operation="add", id="shop", table="orders", row={"id": "o2", "x": "y"}
        )
        assert added == {"key": "o2"}

        await call(a, operation="destroy", id="shop")
        missing = await call(b, operation="count", id="shop", table="orders")
        assert_typed_line(missing, "unknown database 'shop'")


async def test_a_table_dropped_behind_the_server_answers_a_typed_line_not_sql(
    serve: Any, dsn: str
) -> None:
    import psycopg

    async with serve("--database", dsn, "--tools", "database") as a:
        await call(a, operation="create", id="shop", tables=ITEMS)
        assert await call(a, operation="count", id="shop", table="items") == {"count": 0}
        with psycopg.connect(dsn, autocommit=True) as admin:
            admin.execute('DROP TABLE "orkestrel_shop"."items"')
        for operation, extra in (
            ("count", {}),
            ("records", {}),
            ("add", {"row": {"id": "i1", "n": 1}}),
        ):
            answer = await call(a, operation=operation, id="shop", table="items", **extra)
            assert_typed_line(answer, "items")


FLOOD = 600
"""Concurrent `records` steps of the flooding session's one workflow call."""
ROWS = 20_000
SLOW = {
    "conditions": [{"column": "label", "operator": "like", "values": ["%7%3%"]}],
    "order": [{"column": "label", "direction": "descending"}],
    "limit": 1,
}
"""A read that scans and sorts the whole table in PostgreSQL and answers one row."""


@asynccontextmanager
async def flooded(dsn: str, home: Path) -> AsyncIterator[tuple[ServeProcess, Session, Any]]:
    """A server over HTTP with a `ROWS`-row table, a second session on it, and a flag that is
    set once the first session's workflow of `FLOOD` concurrent reads has answered; the
    workflow is under way when the block starts."""
    root = home / "root"
    root.mkdir(parents=True)
    args = ["--root", str(root), "--database", dsn, "--pool-size", "4"]
    args += ["--tools", "database", "--workflow"]
    server = ServeProcess(args, home)
    try:
        async with connect(server.url) as a, connect(server.url) as b:
            tables = {"items": {"columns": {"label": "string"}}}
            await call(a, operation="create", id="shop", tables=tables)
            rows = [{"id": f"r{index:05d}", "label": f"label {index}"} for index in range(ROWS)]
            await call(a, operation="add", id="shop", table="items", row=rows)
            records = {"operation": "records", "id": "shop", "table": "items"}
            step = {"behavior": "database", "input": {**records, "query": SLOW}}
            phase = {"tasks": [step] * FLOOD, "concurrency": FLOOD}
            done = anyio.Event()

            async def flood() -> None:
                answer = await a.call_tool("workflow", {"phases": [phase]})
                assert not answer.get("isError"), answer
                done.set()

            async with anyio.create_task_group() as group:
                group.start_soon(flood)
                await until_busy(dsn)
                yield server, b, done
                await done.wait()
    finally:
        server.stop()


async def until_busy(dsn: str) -> None:
    """Waits until the server runs database work (the flood has reached PostgreSQL)."""
    import psycopg

    with anyio.fail_after(60):
        while True:
            with psycopg.connect(dsn, autocommit=True) as admin:
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND application_name LIKE 'orkestrel-serve:%' AND query ILIKE '%LIKE%'"
                ).fetchone()
            if row and row[0]:
                return
            await anyio.sleep(0.01)


async def test_one_session_flooding_the_database_does_not_starve_another(
    dsn: str, tmp_path: Path
) -> None:
    async with flooded(dsn, tmp_path) as (_, b, done):
        started = time.monotonic()
        counted = await call(b, operation="count", id="shop", table="items")
        waited = time.monotonic() - started
        flooding = not done.is_set()
        await done.wait()
        flood_took = time.monotonic() - started
    print(f"the other session's count answered in {waited:.2f} s; the flood ran {flood_took:.2f} s")
    assert counted == {"count": ROWS}
    # Served in turn with the flood, not behind its queue: before, the count waited for about
    # a third of the flood or more; now for a few units of work.
    assert flooding, f"the count waited {waited:.2f} s, for the whole flood"
    assert waited < flood_took / 10


async def test_readiness_answers_503_while_one_session_saturates_the_database(
    dsn: str, tmp_path: Path
) -> None:
    seen: list[tuple[int, Any]] = []
    async with flooded(dsn, tmp_path) as (server, _, done), httpx.AsyncClient() as http:
        while not done.is_set():
            ready = await http.get(f"{server.base}/readyz", timeout=30)
            seen.append((ready.status_code, ready.json()))
            await anyio.sleep(0.05)
        after = await http.get(f"{server.base}/readyz", timeout=30)
    saturated = [body for status, body in seen if status == 503]
    assert saturated, seen
    assert saturated[0]["status"] == "unavailable"
    assert saturated[0]["database"] == "saturated"
    assert saturated[0]["waiting"] > saturated[0]["limit"] == 128
    assert "more than --ready-queue 128" in saturated[0]["reason"]
    print(f"/readyz while flooded: {saturated[0]}; {len(saturated)} of {len(seen)} probes 503")
    assert (after.status_code, after.json()) == (200, {"status": "ready"})
