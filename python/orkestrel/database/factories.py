"""The constructor-free way to reach `Database` and the drivers."""

from __future__ import annotations

from pathlib import Path

from orkestrel.database.constants import POSTGRES_SCHEMA_PREFIX
from orkestrel.database.database import Database
from orkestrel.database.drivers.postgres import PostgresDriver
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
    DriverFactory,
    DriverInterface,
    IndexMap,
    KeyGenerator,
    PrimaryMap,
    TableMap,
)


def create_database(
    *,
    tables: TableMap,
    driver: DriverInterface | None = None,
    primary: PrimaryMap | None = None,
    indexes: IndexMap | None = None,
    name: str | None = None,
    generator: KeyGenerator | None = None,
    version: int | float | None = None,
    readonly: bool = False,
) -> DatabaseInterface:
    """Creates a database over the declared tables, returned as a `DatabaseInterface`; it
    connects on first use, over a private in-memory SQLite database unless a driver is given.
    """
    return Database(
        tables=tables,
        driver=driver,
        primary=primary,
        indexes=indexes,
        name=name,
        generator=generator,
        version=version,
        readonly=readonly,
    )


def create_memory_driver() -> DriverInterface:
    """Creates a driver over a private in-memory SQLite database that lives as long as the
    process.
    """
    return SQLiteDriver(MEMORY)


def create_sqlite_driver(path: str | Path, *, busy: float = 5.0) -> DriverInterface:
    """Creates a driver over one SQLite file, created on first use; writers wait up to `busy`
    seconds for the file's write lock.

    The path `:memory:` gives a private in-memory database instead, as `create_memory_driver`
    does.
    """
    if str(path) == MEMORY:
        return SQLiteDriver(MEMORY)
    return SQLiteDriver(Path(path), busy=busy)


def create_postgres_driver(
    dsn: str, *, schema: str = "public", connect_timeout: int = 10
) -> DriverInterface:
    """Creates a driver over one schema of a PostgreSQL server reached by `dsn` (psycopg 3)."""
    return PostgresDriver(dsn, schema=schema, connect_timeout=connect_timeout)


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
    dsn: str, *, connect_timeout: int = 10, prefix: str = POSTGRES_SCHEMA_PREFIX
) -> DriverFactory:
    """Creates a driver factory that keeps each database id in its own schema of one PostgreSQL
    server, named `prefix` + id.

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
        return PostgresDriver(dsn, schema=schema, connect_timeout=connect_timeout)

    return factory
