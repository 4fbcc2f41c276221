"""Many servers, one PostgreSQL: two `orkestrel serve --transport http --database` processes
share databases, rows, the workspace and workflow runs, take 200 concurrent calls with exact
counts inside their pools, and one killed mid-batch leaves the batch whole or absent."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from support.mcp_client import connect, text
from support.postgres import fresh_database
from support.serve_process import ServeProcess

pytestmark = pytest.mark.anyio

POOL = 4
ITEMS = {"items": {"columns": {"n": "integer", "server": "string"}}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def dsn() -> Iterator[str]:
    """A fresh PostgreSQL database on the configured server, dropped afterwards."""
    with fresh_database() as name:
        yield name


class Server(ServeProcess):
    """One `orkestrel serve --transport http` process on the shared PostgreSQL."""

    def __init__(self, dsn: str, home: Path, extra: tuple[str, ...] = ()) -> None:
        root = home / "project"
        root.mkdir(parents=True)
        command = ["--root", str(root), "--data", str(home / "data"), "--database", dsn]
        command += ["--pool-size", str(POOL), "--workflow"]
        command += ["--tools", "database,workspace", *extra]
        super().__init__(command, home)


@contextmanager
def servers(
    dsn: str, tmp_path: Path, count: int = 2, extra: tuple[str, ...] = ()
) -> Iterator[list[Server]]:
    started: list[Server] = []
    try:
        for index in range(count):
            started.append(Server(dsn, tmp_path / f"server{index}", extra))
        yield started
    finally:
        for server in started:
            server.stop()


async def call(session: Any, tool: str, /, **arguments: Any) -> Any:
    """A tool's value, or `("error", message)`."""
    result = await session.call_tool(tool, arguments)
    if result.get("isError"):
        return ("error", text(result))
    if "structuredContent" in result:
        return result["structuredContent"]
    # A string result is sent as plain text; anything else that is not an object as JSON text.
    try:
        return json.loads(text(result))
    except json.JSONDecodeError:
        return text(result)


def connections(dsn: str) -> dict[str, int]:
    """The open connections of each server process, by `application_name`."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT application_name, count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name LIKE 'orkestrel-serve:%' "
            "GROUP BY application_name"
        ).fetchall()
    return {str(name): int(count) for name, count in rows}


async def test_a_database_created_through_one_server_is_used_through_the_other(
    dsn: str, tmp_path: Path
) -> None:
    with servers(dsn, tmp_path) as (one, two):
        async with connect(one.url) as a, connect(two.url) as b:
            created = await call(a, "database", operation="create", id="shop", tables=ITEMS)
            assert not isinstance(created, tuple), created
            tables = await call(b, "database", operation="tables", id="shop")
            assert "items" in json.dumps(tables), tables
            rows = [{"id": "a1", "n": 1, "server": "one"}, {"id": "a2", "n": 2, "server": "one"}]
            assert await call(a, "database", operation="add", id="shop", table="items", row=rows)
            read = await call(b, "database", operation="records", id="shop", table="items")
            assert sorted(row["id"] for row in read["rows"]) == ["a1", "a2"]
            row = {"id": "b1", "n": 3, "server": "two"}
            await call(b, "database", operation="add", id="shop", table="items", row=row)
            counted = await call(a, "database", operation="count", id="shop", table="items")
            assert counted == {"count": 3}


async def test_a_workspace_saved_through_one_server_is_opened_by_the_other(
    dsn: str, tmp_path: Path
) -> None:
    with servers(dsn, tmp_path) as (one, two):
        async with connect(one.url) as a, connect(two.url) as b:
            written = await call(a, "workspace", operation="write", path="notes.md", content="hi")
            assert "error" not in str(written)
            read = await call(b, "workspace", operation="read", path="notes.md")
            assert "hi" in json.dumps(read)
            await call(b, "workspace", operation="append", path="notes.md", content=" there")
            again = await call(a, "workspace", operation="read", path="notes.md")
            assert "hi there" in json.dumps(again)
        assert not (tmp_path / "server0" / "project" / "notes.md").exists()


async def test_a_workflow_run_is_stored_on_the_shared_server(dsn: str, tmp_path: Path) -> None:
    import psycopg

    with servers(dsn, tmp_path, count=1) as (one,):
        async with connect(one.url) as a:
            await call(a, "database", operation="create", id="shop", tables=ITEMS)
            steps = [{"name": "database", "input": {"operation": "tables", "id": "shop"}}]
            ran = await call(a, "workflow", name="shared", steps=steps)
            assert "error" not in str(ran), ran
    with psycopg.connect(dsn) as check:
        stored = check.execute(
            "SELECT count(*) FROM orkestrel.workflow_entries WHERE id = %s", ['["shared","head"]']
        ).fetchone()
    assert stored == (1,)


async def test_two_hundred_concurrent_calls_over_two_servers_keep_exact_counts(
    dsn: str, tmp_path: Path
) -> None:
    with servers(dsn, tmp_path) as (one, two):
        async with connect(one.url) as a, connect(two.url) as b:
            await call(a, "database", operation="create", id="shop", tables=ITEMS)
            plan: list[tuple[Any, str, dict[str, Any]]] = []
            for index in range(120):
                session, name = (a, "one") if index % 2 else (b, "two")
                row = {"id": f"k{index}", "n": index, "server": name}
                plan.append((session, "add", {"row": row}))
            for index in range(20):
                session = b if index % 2 else a
                row = {"id": f"k{index * 3}", "n": -1, "server": "duplicate"}
                plan.append((session, "add", {"row": row}))
            for index in range(60):
                session = a if index % 2 else b
                plan.append((session, "count" if index % 3 else "records", {}))
            random.Random(7).shuffle(plan)
            answers: list[Any] = [None] * len(plan)
            peak: dict[str, int] = {}
            watching = True

            def watch() -> None:
                while watching:
                    for server, count in connections(dsn).items():
                        peak[server] = max(peak.get(server, 0), count)
                    time.sleep(0.01)

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()

            async def run(index: int, session: Any, operation: str, extra: dict[str, Any]) -> None:
                answers[index] = await call(
                    session, "database", operation=operation, id="shop", table="items", **extra
                )

            try:
                async with anyio.create_task_group() as group:
                    for index, (session, operation, extra) in enumerate(plan):
                        group.start_soon(run, index, session, operation, extra)
            finally:
                watching = False
                watcher.join(10)
            final = await call(
                a, "database", operation="records", id="shop", table="items", query={"limit": 1000}
            )
    failures = [answer[1] for answer in answers if isinstance(answer, tuple)]
    assert len(plan) == 200
    assert len(failures) == 20, failures
    assert all("connection" not in failure.lower() for failure in failures), failures
    assert all(
        "exist" in failure.lower()
        or "duplicate" in failure.lower()
        or "conflict" in failure.lower()
        for failure in failures
    ), failures
    keys = sorted(row["id"] for row in final["rows"])
    assert keys == sorted(f"k{index}" for index in range(120))
    # A contested key keeps whichever add committed first: one row, never two.
    assert len(final["rows"]) == 120
    assert len(peak) == 2, peak
    assert all(count <= POOL for count in peak.values()), peak
    print(f"peak connections per server: {sorted(peak.values())} (pool {POOL})")


def test_a_server_killed_mid_batch_leaves_it_whole_or_absent(dsn: str, tmp_path: Path) -> None:
    with servers(dsn, tmp_path) as (one, two):

        async def create() -> None:
            async with connect(one.url) as a:
                await call(a, "database", operation="create", id="shop", tables=ITEMS)

        anyio.run(create)
        rows = [{"id": f"r{index:05d}", "n": index, "server": "one"} for index in range(10_000)]
        body = {"operation": "add", "id": "shop", "table": "items", "row": rows}

        def send() -> None:
            async def go() -> None:
                async with connect(one.url) as a:
                    await a.call_tool("database", body)

            with suppress(BaseException):
                anyio.run(go)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        deadline = time.monotonic() + 30
        while not (seen := inserting(dsn)) and time.monotonic() < deadline:
            time.sleep(0.005)
        os.kill(one.process.pid, signal.SIGKILL)
        assert seen, "the batch never reached PostgreSQL"
        one.process.wait(15)
        sender.join(30)

        async def check() -> Any:
            async with connect(two.url) as b:
                return await call(b, "database", operation="count", id="shop", table="items")

        counted = anyio.run(check)
        assert counted in ({"count": 0}, {"count": 10_000}), counted
        print(f"killed mid-batch; the other server counts {counted['count']}")
        assert httpx.get(f"{two.base}/readyz", timeout=10).status_code == 200


def inserting(dsn: str) -> bool:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name LIKE 'orkestrel-serve:%' AND state <> 'idle' "
            "AND query ILIKE 'INSERT%'"
        ).fetchone()
    return bool(row and row[0])


def test_health_and_readiness_need_no_token(dsn: str, tmp_path: Path) -> None:
    with servers(dsn, tmp_path, count=1, extra=("--token", "s3cret")) as (one,):
        health = httpx.get(f"{one.base}/healthz", timeout=10)
        ready = httpx.get(f"{one.base}/readyz", timeout=10)
        mcp = httpx.post(one.url, json={}, timeout=10)
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
    assert mcp.status_code == 401


async def test_concurrent_changes_through_two_servers_never_overwrite_each_other(
    dsn: str, tmp_path: Path
) -> None:
    with servers(dsn, tmp_path) as (one, two):
        async with connect(one.url) as a, connect(two.url) as b:
            await call(a, "workspace", operation="write", path="log.txt", content="")

            async def append(session: Any, line: str) -> None:
                done = await call(
                    session, "workspace", operation="append", path="log.txt", content=f"{line}\n"
                )
                assert not isinstance(done, tuple), done

            async with anyio.create_task_group() as group:
                for index in range(40):
                    group.start_soon(append, a if index % 2 else b, f"line {index}")
            read = await call(b, "workspace", operation="read", path="log.txt")
    lines = json.dumps(read)
    assert all(f"line {index}\\n" in lines for index in range(40)), read


def test_a_session_belongs_to_the_server_that_opened_it(dsn: str, tmp_path: Path) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    with servers(dsn, tmp_path) as (one, two):
        opened = httpx.post(one.url, json=initialize, headers=headers, timeout=10)
        session = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        elsewhere = httpx.post(
            two.url, json=listing, headers={**headers, "mcp-session-id": session}, timeout=10
        )
    assert opened.status_code == 200
    assert elsewhere.status_code == 404


async def test_readiness_fails_while_postgresql_is_unreachable() -> None:
    from starlette.applications import Starlette

    from orkestrel.cli.health import health_routes
    from orkestrel.cli.shared import SharedState
    from orkestrel.database import create_postgres_pool

    pool = create_postgres_pool("postgresql://postgres@127.0.0.1:9/none", connect_timeout=1)
    try:
        app = Starlette(routes=health_routes(SharedState(pool)))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            ready = await client.get("/readyz")
            health = await client.get("/healthz")
    finally:
        pool.close()
    assert (ready.status_code, ready.json()["status"]) == (503, "unavailable")
    assert health.status_code == 200
