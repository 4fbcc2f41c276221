"""The PostgreSQL driver over psycopg 3: one schema of one server per database."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

import anyio
import anyio.lowlevel

from orkestrel.abort import AbortSignal
from orkestrel.contract.helpers import preview
from orkestrel.database.constants import POSTGRES_INLINE_WAIT
from orkestrel.database.dialect import postgres_dialect
from orkestrel.database.drivers.base import ThreadedDriver
from orkestrel.database.drivers.postgres_errors import missing_module, translate_postgres
from orkestrel.database.drivers.postgres_loop import execute_on_loop, loop_drivable
from orkestrel.database.errors import DatabaseError
from orkestrel.database.helpers import identifier_fault
from orkestrel.database.migrate import StoredColumn
from orkestrel.database.operation import LoneRead, Operation, aborted_error
from orkestrel.database.schema import TableSchema
from orkestrel.database.types import SessionInterface

T = TypeVar("T")

_INTROSPECT = (
    "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
    "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position"
)


class PostgresSession:
    """Runs statements on a psycopg connection inside one unit of work."""

    __slots__ = ("_connection", "_operation")

    def __init__(self, connection: Any, operation: Operation) -> None:
        self._connection = connection
        self._operation = operation

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Runs a statement and returns every row it yields."""
        self._operation.check()
        rows: list[tuple[Any, ...]] = self._connection.execute(sql, tuple(params)).fetchall()
        return rows

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Runs a statement and returns how many rows it changed."""
        self._operation.check()
        count: int = self._connection.execute(sql, tuple(params)).rowcount
        return count

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        """Runs one statement once per parameter list, pipelined."""
        self._operation.check()
        with self._connection.cursor() as cursor:
            cursor.executemany(sql, params)


class PostgresDriver(ThreadedDriver):
    """Keeps a database in one schema (namespace) of a PostgreSQL server, reached by DSN.

    Strings are stored `COLLATE "C"`, so they sort by code point exactly as SQLite and Python
    do. A read-only open makes every transaction `READ ONLY` and sets
    `default_transaction_read_only`, so the server itself refuses every write. An abort sends
    the server a cancel request for the running statement.
    """

    # A pooled connection also serves writers: only its transaction makes a read read-only.
    _readonly_per_transaction = True

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "public",
        connect_timeout: int = 10,
        inline: float = POSTGRES_INLINE_WAIT,
    ) -> None:
        fault = identifier_fault(schema)
        if fault is not None:
            raise DatabaseError("VALIDATION", f"invalid schema name {preview(schema)}: {fault}")
        if (
            isinstance(inline, bool)
            or not isinstance(inline, int | float)
            or not math.isfinite(inline)
        ):
            raise DatabaseError(
                "VALIDATION", f"inline must be a finite number of seconds, not {preview(inline)}"
            )
        super().__init__(postgres_dialect(schema))
        self._dsn = dsn
        self._connect_timeout = connect_timeout
        self._inline_wait = max(0.0, inline)
        # A running mean of the lone reads' time, from the request to the answer: a server
        # that takes longer than half the inline budget is not waited for inline.
        self._round_trip = 0.0

    async def run(
        self,
        work: Callable[[SessionInterface], T],
        *,
        write: bool,
        signal: AbortSignal | None = None,
    ) -> T:
        """Runs `work` as one transaction and returns its result.

        A lone read (one statement) runs on the event loop itself when the connection is free,
        outside read-only mode and on psycopg 3.2 or 3.3, since a worker thread costs more than
        the statement's own round trip; all other work runs in a worker thread, as
        `ThreadedDriver.run` does. `PooledPostgresDriver` always uses a worker thread."""
        if not write and isinstance(work, LoneRead) and self._on_loop:
            if signal is not None and signal.aborted:
                raise aborted_error()
            await anyio.lowlevel.checkpoint_if_cancelled()
            ran, result = await self._read_on_loop(work, signal)
            if ran:
                return cast(T, result)
        return await super().run(work, write=write, signal=signal)

    @property
    def _on_loop(self) -> bool:
        """Whether lone reads may run on the event loop: not in read-only mode, where each
        read runs inside its own `BEGIN READ ONLY` (see `_readonly_per_transaction`)."""
        return loop_drivable() and not (self._readonly and self._readonly_per_transaction)

    async def _read_on_loop(
        self, read: LoneRead[T], signal: AbortSignal | None
    ) -> tuple[bool, T | None]:
        """Runs a lone read on the event loop; `(False, ...)` when the connection is busy or
        must be (re)opened first, which a worker thread does."""
        if not self._lock.acquire(blocking=False):
            return False, None
        operation = Operation(signal, self._interrupt_if_active)
        try:
            connection = self._connection
            if self._closed or connection is None or not self._healthy(connection):
                return False, None
            operation.begin()
            with self._guard:
                self._active = operation
            operation.attach()
            try:
                return True, await self._read(read, operation, connection)
            finally:
                with self._guard:
                    self._active = None
        finally:
            operation.detach()
            self._lock.release()

    async def _read(self, read: LoneRead[T], operation: Operation, connection: Any) -> T:
        try:
            operation.check()
            cursor = connection.cursor()
            quick = self._round_trip <= self._inline_wait / 2
            inline = self._inline_wait if quick else 0.0
            started = time.perf_counter()
            try:
                await execute_on_loop(cursor, read.sql, tuple(read.params), operation.abort, inline)
                self._round_trip += (time.perf_counter() - started - self._round_trip) / 8
                rows: list[tuple[Any, ...]] = cursor.fetchall()
                operation.check()
            finally:
                self._settle(operation)
                if not self._idle(connection):
                    # Left mid-statement (its end could not be awaited): replaced before the
                    # next unit of work.
                    connection.close()
            return read.shape(rows)
        except Exception as error:
            self._fail(error, operation)

    def _idle(self, connection: Any) -> bool:
        # Deferred: psycopg is an optional dependency (the `postgres` extra).
        from psycopg.pq import TransactionStatus

        return bool(connection.info.transaction_status == TransactionStatus.IDLE)

    @property
    def schema(self) -> str:
        """The PostgreSQL schema the tables live in."""
        return str(self.dialect.namespace)

    @property
    def durable(self) -> bool:
        """Whether rows outlive the process: always."""
        return True

    def _connect(self, readonly: bool) -> Any:
        try:
            # Deferred: psycopg is an optional dependency (the `postgres` extra).
            import psycopg
        except ImportError as error:
            raise missing_module("the postgres driver", "psycopg") from error
        options = "-c default_transaction_read_only=on" if readonly else ""
        try:
            return psycopg.connect(
                self._dsn,
                autocommit=True,
                connect_timeout=self._connect_timeout,
                options=options,
            )
        except psycopg.Error as error:
            raise self._translate(error) from error

    def _healthy(self, connection: Any) -> bool:
        return not (connection.closed or connection.broken)

    def _seal(self, connection: Any) -> None:
        connection.execute("SET default_transaction_read_only = on")

    def _disconnect(self, connection: Any) -> None:
        connection.close()

    def _discard(self) -> None:
        """Nothing to remove: the schema is created inside the opening transaction, which a
        failed open rolls back."""

    def _vacate(self, connection: Any) -> None:
        try:
            if self.schema != "public":
                # RESTRICT: a schema still holding anything not declared here is kept.
                with contextlib.suppress(Exception):
                    connection.execute(
                        f"DROP SCHEMA IF EXISTS {self.dialect.quote(self.schema)}", ()
                    )
        finally:
            connection.close()

    def _begin(self, connection: Any, write: bool, *, alone: bool = False) -> None:
        if not alone:
            connection.execute("BEGIN" if write and not self._readonly else "BEGIN READ ONLY")

    def _commit(self, connection: Any) -> None:
        connection.execute("COMMIT")

    def _rollback(self, connection: Any) -> None:
        # Deferred: psycopg is an optional dependency (the `postgres` extra).
        from psycopg.pq import TransactionStatus

        for _ in range(3):
            with contextlib.suppress(Exception):
                connection.execute("ROLLBACK")
            if connection.info.transaction_status == TransactionStatus.IDLE:
                return

    def _interrupt(self, connection: Any) -> None:
        with contextlib.suppress(Exception):
            connection.cancel_safe(timeout=2.0)

    def _session(self, connection: Any, operation: Operation) -> SessionInterface:
        return PostgresSession(connection, operation)

    def _prepare(
        self,
        session: SessionInterface,
        schemas: Mapping[str, TableSchema],
        *,
        name: str,
        version: int | float | None,
        readonly: bool,
    ) -> None:
        if not readonly:
            # Servers that open one database at the same moment would race in the catalog
            # (CREATE ... IF NOT EXISTS is not safe against a concurrent create): take turns.
            session.rows("SELECT pg_advisory_xact_lock(hashtext(%s))", [self.schema])
            session.run(f"CREATE SCHEMA IF NOT EXISTS {self.dialect.quote(self.schema)}")
        super()._prepare(session, schemas, name=name, version=version, readonly=readonly)

    def _introspect(self, session: SessionInterface, table: str) -> list[StoredColumn] | None:
        rows = session.rows(_INTROSPECT, [self.schema, table])
        if not rows:
            return None
        return [StoredColumn(column, kind, nullable == "YES") for column, kind, nullable in rows]

    def _translate(self, error: Exception) -> DatabaseError:
        return translate_postgres(error)
