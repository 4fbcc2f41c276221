"""Fixtures for the database suite: one fresh driver per test for each engine.

The PostgreSQL server comes from `ORKESTREL_POSTGRES_DSN`. Without it, the session tries to
start a private cluster through `.ci/postgres`; when that fails the postgres cases skip, unless
`ORKESTREL_REQUIRE_POSTGRES=1` (set by CI), which makes them fail instead.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import (
    DriverInterface,
    create_memory_driver,
    create_postgres_driver,
    create_postgres_pool,
    create_sqlite_driver,
)
from support.sqlite_ledger import SQLiteLedger

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ("memory", "sqlite", "postgres", "pooled")
DURABLE = ("sqlite", "postgres", "pooled")
"""`pooled` is PostgreSQL through a shared `psycopg_pool` connection pool."""

MakeDriver = Callable[[], DriverInterface]


def _start_cluster() -> tuple[str, str] | None:
    script = ROOT / ".ci" / "postgres"
    if not script.exists():
        return None
    try:
        done = subprocess.run(
            [str(script), "start"], capture_output=True, text=True, timeout=300, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    exports: dict[str, str] = {}
    for line in done.stdout.splitlines():
        if line.startswith("export ") and "=" in line:
            key, _, value = line[len("export ") :].partition("=")
            exports[key] = shlex.split(value)[0] if value else ""
    dsn, directory = exports.get("ORKESTREL_POSTGRES_DSN"), exports.get("ORKESTREL_POSTGRES_DIR")
    return (dsn, directory) if dsn and directory else None


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """The DSN of a live PostgreSQL server, started for the session when none is configured."""
    dsn = os.environ.get("ORKESTREL_POSTGRES_DSN")
    if dsn:
        yield dsn
        return
    started = _start_cluster()
    if started is None:
        message = "no PostgreSQL server: set ORKESTREL_POSTGRES_DSN or run .ci/postgres start"
        if os.environ.get("ORKESTREL_REQUIRE_POSTGRES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    dsn, directory = started
    os.environ["ORKESTREL_POSTGRES_DSN"] = dsn
    try:
        yield dsn
    finally:
        os.environ.pop("ORKESTREL_POSTGRES_DSN", None)
        subprocess.run([str(ROOT / ".ci" / "postgres"), "stop", directory], check=False)


def drop_schema(dsn: str, schema: str) -> None:
    """Drops a test schema and everything in it."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
        )


def _builder(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[MakeDriver]:
    if engine == "memory":
        yield create_memory_driver
        return
    if engine == "sqlite":
        path = tmp_path / "store.sqlite3"
        yield lambda: create_sqlite_driver(path)
        return
    dsn = request.getfixturevalue("postgres_dsn")
    schema = f"t_{uuid.uuid4().hex[:16]}"
    if engine == "pooled":
        pool = request.getfixturevalue("postgres_pool")
        yield lambda: create_postgres_driver(pool=pool, schema=schema)
    else:
        yield lambda: create_postgres_driver(dsn, schema=schema)
    drop_schema(dsn, schema)


@pytest.fixture(scope="session")
def postgres_pool(postgres_dsn: str) -> Iterator[Any]:
    """One small connection pool the `pooled` cases share, as a server's databases do."""
    pool = create_postgres_pool(postgres_dsn, size=4, name="orkestrel-tests")
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine a parametrised test runs on."""
    return str(request.param)


@pytest.fixture
def make_driver(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[MakeDriver]:
    """Builds drivers for the test's engine; every driver it builds shares one store (file or
    schema), so a second driver sees what the first wrote, except in memory.
    """
    yield from _builder(engine, tmp_path, request)


@pytest.fixture(params=DURABLE)
def durable(request: pytest.FixtureRequest) -> str:
    """The durable engine a parametrised test runs on."""
    return str(request.param)


@pytest.fixture
def make_durable(
    durable: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[MakeDriver]:
    """Builds drivers over one shared durable store (a file or a schema) for the test's engine."""
    yield from _builder(durable, tmp_path, request)


@pytest.fixture
def anyio_backend() -> str:
    """Runs the async tests on asyncio unless a test asks for trio."""
    return "asyncio"


@pytest.fixture
def sqlite_ledger(monkeypatch: pytest.MonkeyPatch) -> Iterator[SQLiteLedger]:
    """Every SQLite connection opened during the test, held so none is collected unseen."""
    ledger = SQLiteLedger()
    monkeypatch.setattr(sqlite3, "connect", ledger.connect)
    yield ledger
    ledger.close_all()
