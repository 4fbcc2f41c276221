"""The served toolbox's state on one PostgreSQL server (`--database`), shared by every
`orkestrel serve` process pointed at it: the database tool's databases and definitions, the
workspace, and the workflow snapshots, all through one connection pool per process."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio

from orkestrel.database import (
    DriverFactory,
    DriverInterface,
    create_postgres_driver,
    create_postgres_factory,
    create_postgres_pool,
)
from orkestrel.database.drivers.pooled import borrow

STATE_SCHEMA = "orkestrel"
"""The schema that keeps the toolbox's own tables (definitions, workspaces, workflow runs);
the databases the tool creates live in `orkestrel_<id>` schemas beside it."""

APPLICATION_NAME = "orkestrel-serve"
"""Starts the `application_name` of every connection a server opens (`orkestrel-serve:<pid>`),
so `pg_stat_activity` shows which process holds which connection."""

LOCK_POLL = 0.02
"""The seconds between two tries at an advisory lock another server holds."""


@dataclass(frozen=True)
class PostgresSettings:
    """Represents `--database`, `--pool-size` and `--pool-timeout`."""

    dsn: str
    size: int
    timeout: float


@dataclass(frozen=True)
class SharedState:
    """Represents the open pool the toolbox keeps its state through."""

    pool: Any

    def driver(self) -> DriverInterface:
        """A driver for one of the toolbox's own databases, in `STATE_SCHEMA`."""
        return create_postgres_driver(pool=self.pool, schema=STATE_SCHEMA)

    def databases(self) -> DriverFactory:
        """The driver factory of the databases the database tool creates."""
        return create_postgres_factory(pool=self.pool)

    @asynccontextmanager
    async def exclusive(self, name: str) -> AsyncIterator[None]:
        """Holds PostgreSQL's advisory lock `name` for the body, against every process on this
        server; a process that dies holding it loses it with its connection."""
        connection = await anyio.to_thread.run_sync(borrow, self.pool)
        try:
            # Another process holds it: PostgreSQL has no notice of an advisory lock's release.
            while not await anyio.to_thread.run_sync(_try_lock, connection, name):  # noqa: ASYNC110
                await anyio.sleep(LOCK_POLL)
            try:
                yield
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(_unlock, connection, name)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.pool.putconn, connection)

    async def ready(self) -> bool:
        """Whether the server answers a query through the pool now."""

        def probe() -> bool:
            with self.pool.connection(timeout=2.0) as connection:
                connection.execute("SELECT 1")
            return True

        try:
            return await anyio.to_thread.run_sync(probe)
        except Exception:
            return False


@asynccontextmanager
async def open_shared_state(settings: PostgresSettings) -> AsyncIterator[SharedState]:
    """Opens the pool `settings` describe for as long as the context lasts."""
    pool = await anyio.to_thread.run_sync(
        lambda: create_postgres_pool(
            settings.dsn,
            size=settings.size,
            timeout=settings.timeout,
            name=f"{APPLICATION_NAME}:{os.getpid()}",
        )
    )
    try:
        yield SharedState(pool)
    finally:
        with anyio.CancelScope(shield=True):  # a server cancelled as it stops still closes it
            await anyio.to_thread.run_sync(pool.close)


def unreachable(dsn: str, seconds: int = 10) -> str | None:
    """Why one connection to `dsn` cannot be opened within `seconds`, on one line (without the
    DSN, which may hold a password); `None` when it opens."""
    try:
        import psycopg
    except ImportError:
        return "PostgreSQL needs psycopg: pip install 'orkestrel[postgres]'"
    try:
        psycopg.connect(dsn, connect_timeout=seconds, autocommit=True).close()
    except psycopg.OperationalError as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        return f"cannot reach the PostgreSQL server: {lines[0] if lines else 'no reason given'}"
    except psycopg.Error:
        return "not a PostgreSQL connection string (postgresql://user@host:port/name)"
    return None


def _try_lock(connection: Any, name: str) -> bool:
    row = connection.execute("SELECT pg_try_advisory_lock(hashtext(%s))", [name]).fetchone()
    return bool(row[0])


def _unlock(connection: Any, name: str) -> None:
    connection.execute("SELECT pg_advisory_unlock(hashtext(%s))", [name])
