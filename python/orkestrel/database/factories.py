"""The constructor-free way to reach `Database` and the drivers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Unpack

from orkestrel.database.constants import (
    INLINE_BUDGET,
    POSTGRES_INLINE_WAIT,
    POSTGRES_POOL_IDLE,
    POSTGRES_POOL_SIZE,
    POSTGRES_POOL_TIMEOUT,
    POSTGRES_SCHEMA_PREFIX,
)
from orkestrel.database.database import Database
from orkestrel.database.drivers.pooled import PooledPostgresDriver
from orkestrel.database.drivers.postgres import PostgresDriver
from orkestrel.database.drivers.postgres_errors import missing_module
from orkestrel.database.drivers.sqlite import MEMORY, SQLiteDriver
from orkestrel.database.errors import DatabaseError
from orkestrel.database.helpers import (
    file_name,
    identifier_fault,
    is_reserved,
    is_reserved_schema,
)
from orkestrel.database.types import (
    DatabaseInterface,
    DatabaseOptions,
    DriverFactory,
    DriverInterface,
)


def create_database(**options: Unpack[DatabaseOptions]) -> DatabaseInterface:
    """Creates a database over the declared tables, returned as a `DatabaseInterface`; it
    connects on first use, over a private in-memory SQLite database unless a driver is given.

    The options are `Database`'s, with its defaults.
    """
    return Database(**options)


def create_memory_driver() -> DriverInterface:
    """Creates a driver over a private in-memory SQLite database that lives as long as the
    process.
    """
    return SQLiteDriver(MEMORY)


def create_sqlite_driver(
    path: str | Path, *, busy: float = 5.0, inline: float = INLINE_BUDGET
) -> DriverInterface:
    """Creates a driver over one SQLite file, created on first use; writers wait up to `busy`
    seconds for the file's write lock.

    A table call first runs on the event loop's own thread when the connection is free, for at
    most `inline` seconds: past that its statement is stopped, rolled back and run again in a
    worker thread, and so is a call that would wait for a lock. `inline=0` always uses the
    worker thread. The path `:memory:` gives a private in-memory database instead, as
    `create_memory_driver` does.
    """
    if str(path) == MEMORY:
        return SQLiteDriver(MEMORY, inline=inline)
    return SQLiteDriver(Path(path), busy=busy, inline=inline)


def create_postgres_driver(
    dsn: str | None = None,
    *,
    schema: str = "public",
    connect_timeout: int = 10,
    pool: Any = None,
    inline: float = POSTGRES_INLINE_WAIT,
) -> DriverInterface:
    """Creates a driver over one schema of a PostgreSQL server reached by `dsn` (psycopg 3),
    or, with `pool`, borrowing a connection of that `psycopg_pool.ConnectionPool` for each
    unit of work. A lone read waits for a quick server's answer on the event loop's thread
    for at most `inline` seconds, a finite number (0 or less never does; a pooled driver never
    does)."""
    if pool is not None:
        return PooledPostgresDriver(pool, schema=schema)
    if not isinstance(dsn, str):
        raise DatabaseError("VALIDATION", "a PostgreSQL driver needs a dsn or a pool")
    return PostgresDriver(dsn, schema=schema, connect_timeout=connect_timeout, inline=inline)


def create_postgres_pool(
    dsn: str,
    *,
    size: int = POSTGRES_POOL_SIZE,
    timeout: float = POSTGRES_POOL_TIMEOUT,
    idle: float = POSTGRES_POOL_IDLE,
    connect_timeout: int = 10,
    name: str | None = None,
) -> Any:
    """Opens a `psycopg_pool.ConnectionPool` for the PostgreSQL drivers: at most `size`
    connections, a unit of work waits at most `timeout` seconds for one, and a connection idle
    for `idle` seconds is closed (the pool keeps one open). Connections are checked before
    each use, so a server restart costs a reconnect rather than a failed call. `name` becomes
    the connections' `application_name`. Close it with `pool.close()` once every database over
    it is closed.
    """
    try:
        # Deferred: psycopg_pool is an optional dependency (the `postgres` extra).
        import psycopg_pool
    except ImportError as error:
        raise missing_module("a PostgreSQL pool", "psycopg_pool") from error
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise DatabaseError("VALIDATION", f"pool size must be a positive integer, not {size!r}")
    for option, value in (("timeout", timeout), ("idle", idle)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise DatabaseError("VALIDATION", f"pool {option} must be positive seconds")
    settings: dict[str, Any] = {"autocommit": True, "connect_timeout": connect_timeout}
    if name is not None:
        settings["application_name"] = name
    return psycopg_pool.ConnectionPool(
        dsn,
        min_size=1,
        max_size=size,
        timeout=float(timeout),
        max_idle=float(idle),
        kwargs=settings,
        check=psycopg_pool.ConnectionPool.check_connection,
        name=name,
        open=True,
    )


def create_sqlite_factory(directory: str | Path) -> DriverFactory:
    """Creates a driver factory that keeps each database id in its own SQLite file in
    `directory`, named by a safe encoding of the id.
    """
    root = Path(directory)

    def factory(id: str) -> DriverInterface:
        root.mkdir(parents=True, exist_ok=True)
        return SQLiteDriver(root / f"{file_name(id)}.sqlite3")

    return factory


def create_postgres_factory(
    dsn: str | None = None,
    *,
    connect_timeout: int = 10,
    prefix: str = POSTGRES_SCHEMA_PREFIX,
    pool: Any = None,
    inline: float = POSTGRES_INLINE_WAIT,
) -> DriverFactory:
    """Creates a driver factory that keeps each database id in its own schema of one PostgreSQL
    server, named `prefix` + id; with `pool`, every database borrows from that one pool.
    `inline` is each driver's (see `create_postgres_driver`).

    With the default `POSTGRES_SCHEMA_PREFIX`, id `shop` lives in `orkestrel_shop`, so no id
    reaches a schema the factory did not make. An id naming a reserved schema (`public`,
    `information_schema`, `pg_*`, in any case) or a reserved table prefix is refused with
    `VALIDATION`, whatever the prefix.
    """
    if not isinstance(prefix, str) or "\x00" in prefix:
        raise DatabaseError("VALIDATION", "prefix must be a string without NUL characters")

    def factory(id: str) -> DriverInterface:
        schema = f"{prefix}{id}" if isinstance(id, str) else id
        fault = identifier_fault(id) or identifier_fault(schema)
        if fault is None and (is_reserved(id) or is_reserved_schema(id)):
            fault = "it is a reserved name"
        if fault is None and is_reserved_schema(schema):
            fault = f"the schema {schema!r} is reserved"
        if fault is not None:
            raise DatabaseError("VALIDATION", f"database id {id!r} cannot name a schema: {fault}")
        return create_postgres_driver(
            dsn, schema=schema, connect_timeout=connect_timeout, pool=pool, inline=inline
        )

    if pool is None and not isinstance(dsn, str):
        raise DatabaseError("VALIDATION", "a PostgreSQL factory needs a dsn or a pool")
    return factory
