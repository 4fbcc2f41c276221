"""The PostgreSQL driver over a shared psycopg connection pool: many databases, many servers,
a bounded number of connections."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from orkestrel.database.drivers.base import closed_error
from orkestrel.database.drivers.postgres import PostgresDriver
from orkestrel.database.errors import DatabaseError
from orkestrel.database.migrate import drop_schemas
from orkestrel.database.operation import Operation, aborted_error
from orkestrel.database.schema import TableSchema
from orkestrel.database.types import SessionInterface

T = TypeVar("T")

# The driver holds no connection of its own; this stands where the base class keeps one.
_BORROWED = object()


def borrow(pool: Any) -> Any:
    """Takes a connection from a `psycopg_pool.ConnectionPool`: none free within the pool's
    timeout is a retryable `DRIVER` error, and a closed pool is `CLOSED`."""
    # Deferred: psycopg_pool is an optional dependency (the `postgres` extra).
    import psycopg_pool

    try:
        return pool.getconn()
    except psycopg_pool.PoolTimeout as error:
        seconds = getattr(pool, "timeout", None)
        within = f" ({seconds:g} s)" if isinstance(seconds, int | float) else ""
        raise DatabaseError(
            "DRIVER",
            f"no PostgreSQL connection free in the pool within its timeout{within}",
            {"engine": "postgres", "retryable": True},
        ) from error
    except psycopg_pool.PoolClosed as error:
        raise closed_error() from error


class PooledPostgresDriver(PostgresDriver):
    """Keeps a database in one schema of a PostgreSQL server, borrowing a connection from a
    `psycopg_pool.ConnectionPool` for each unit of work and giving it back after.

    Units of work on one database run side by side, each on its own connection, so the pool's
    size bounds what a whole process (every database and store sharing the pool) holds open. A
    read-only driver runs every transaction `READ ONLY`. An abort cancels the statement on the
    connection the unit borrowed. The pool belongs to the caller: closing the driver leaves it
    open.
    """

    def __init__(self, pool: Any, *, schema: str = "public") -> None:
        super().__init__(str(getattr(pool, "conninfo", "")), schema=schema)
        self._pool = pool
        self._borrowed: dict[Operation, Any] = {}

    @property
    def pool(self) -> Any:
        """The connection pool the driver borrows from."""
        return self._pool

    @property
    def _on_loop(self) -> bool:
        """Never: taking a connection from the pool may block."""
        return False

    def _connect(self, readonly: bool) -> Any:
        return _BORROWED

    def _healthy(self, connection: Any) -> bool:
        return True

    def _seal(self, connection: Any) -> None:
        """Nothing to seal: a pooled connection serves writers too, so read-only is per
        transaction (`BEGIN READ ONLY`)."""

    def _disconnect(self, connection: Any) -> None:
        """Nothing to close: connections go back to the pool after each unit of work."""

    def _borrow(self) -> Any:
        try:
            return borrow(self._pool)
        except DatabaseError:
            raise
        except Exception as error:
            raise self._translate(error) from error

    def _transaction(
        self, work: Callable[[SessionInterface], T], write: bool, operation: Operation
    ) -> T:
        try:
            if self._closed:
                raise closed_error()
            # Borrowed before `begin`, so a call cancelled while it waits for the pool is
            # dropped at once (it is still pending) instead of being waited for.
            connection = self._borrow()
            try:
                if not operation.begin():
                    raise aborted_error()
                with self._guard:
                    self._borrowed[operation] = connection
                operation.attach()
                try:
                    return self._execute(work, write, operation, connection)
                finally:
                    with self._guard:
                        self._borrowed.pop(operation, None)
            finally:
                self._pool.putconn(connection)
        finally:
            operation.detach()

    def _settle(self, operation: Operation) -> None:
        with self._guard:
            self._borrowed.pop(operation, None)

    def _interrupt_if_active(self, operation: Operation) -> None:
        # Under the guard, as the one-connection driver does: the operation cannot settle and
        # hand its connection back to the pool while the cancel is on its way, so a late cancel
        # never stops the next borrower's statement (PostgreSQL ignores one at an idle backend).
        with self._guard:
            connection = self._borrowed.get(operation)
            if connection is not None:
                self._interrupt(connection)

    async def close(self) -> None:
        """Closes the driver, leaving the pool open; later calls raise `DatabaseError` coded
        `CLOSED`."""
        await super().close()

    async def destroy(self, schemas: Mapping[str, TableSchema], *, name: str) -> None:
        """Drops the declared tables and the version stamp of database `name`, then its schema
        when nothing else is left in it (never `public`), and closes the driver."""

        def destroy() -> None:
            if self._closed:
                raise closed_error()
            connection = self._borrow()
            try:
                operation = Operation(None, self._interrupt_if_active)
                operation.begin()
                try:
                    self._execute(
                        lambda session: drop_schemas(
                            session,
                            self._dialect,
                            schemas,
                            name=name,
                            introspect=self._introspect,
                        ),
                        True,
                        operation,
                        connection,
                    )
                finally:
                    operation.detach()
                if self.schema != "public":
                    # RESTRICT: a schema still holding anything not declared here is kept.
                    with contextlib.suppress(Exception):
                        schema = self.dialect.quote(self.schema)
                        connection.execute(f"DROP SCHEMA IF EXISTS {schema}")
            finally:
                self._pool.putconn(connection)
            self._closed = True

        await self._call(self._locked, destroy)
