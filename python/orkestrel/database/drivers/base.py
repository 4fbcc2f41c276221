"""The shared machinery of the engine drivers: one connection, one unit of work at a time, each
a transaction run in a worker thread, with real statement interruption on abort.
"""

from __future__ import annotations

import contextlib
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, Protocol, TypeVar, cast

import anyio
import anyio.lowlevel

from orkestrel.abort import AbortSignal
from orkestrel.database.dialect import Dialect
from orkestrel.database.drivers.threads import run_in_database_thread
from orkestrel.database.errors import DatabaseError
from orkestrel.database.migrate import StoredColumn, drop_schemas, prepare_schemas
from orkestrel.database.operation import LoneRead, Operation, Replayable, aborted_error
from orkestrel.database.schema import TableSchema
from orkestrel.database.types import SessionInterface

T = TypeVar("T")


def closed_error() -> DatabaseError:
    """Builds the error a call on a closed database raises."""
    return DatabaseError("CLOSED", "the database is closed")


def translate_error(driver: object, error: Exception) -> Exception:
    """Maps an exception a session raised to the `DatabaseError` the driver's own units of work
    raise for it; a driver that is not a `ThreadedDriver` keeps its exceptions as they are.
    """
    if isinstance(error, DatabaseError):
        return error
    if isinstance(error, UnicodeEncodeError):
        return DatabaseError("VALIDATION", "text must be valid Unicode (no lone surrogates)")
    if isinstance(driver, ThreadedDriver):
        return driver._translate(error)
    return error


class InlineBudget(Protocol):
    """The inline budget of one unit of work, in force while entered: `spent` once the work
    outlived it (or the engine refused a statement that could), so the work must run again in
    a worker thread."""

    spent: bool

    def __enter__(self) -> InlineBudget: ...
    def __exit__(self, *exc: object) -> None: ...


class ThreadedDriver(ABC):
    """Runs each unit of work as one transaction on a single connection in a worker thread.

    A threading lock serialises the work, so the event loop never blocks and any event loop (or
    none) may drive the driver. A unit of work that is aborted, by its signal or by the caller's
    task being cancelled, has its running statement interrupted and its transaction rolled back.
    """

    _readonly_per_transaction = False
    """Whether read-only mode is kept by each transaction (`BEGIN READ ONLY`), so that in it
    even a `LoneRead` runs inside one."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._lock = threading.Lock()
        self._guard = threading.Lock()
        self._active: Operation | None = None
        self._connection: Any = None
        self._opened = False
        self._closed = False
        self._owner: object = None
        self._readonly = False
        self._yielded = 0.0

    @property
    def dialect(self) -> Dialect:
        """The SQL dialect of the engine."""
        return self._dialect

    @property
    def closed(self) -> bool:
        """Whether `close` has been called."""
        return self._closed

    @property
    @abstractmethod
    def durable(self) -> bool:
        """Whether rows outlive the process."""

    async def open(
        self,
        schemas: Mapping[str, TableSchema],
        *,
        name: str,
        version: int | float | None,
        readonly: bool,
    ) -> None:
        """Connects once, then creates or checks the declared tables (and the version stamp).

        A read-only open of durable storage only checks; an in-memory store is created first and
        sealed read-only afterwards, since it starts empty.
        """
        storage_readonly = readonly and self.durable

        def prepare(session: SessionInterface) -> None:
            if not self._opened:
                self._prepare(
                    session, schemas, name=name, version=version, readonly=storage_readonly
                )
                self._opened = True

        def connect() -> bool:
            if self._closed:
                raise closed_error()
            if self._owner is not None and self._owner is not schemas:
                raise DatabaseError("VALIDATION", "a driver serves exactly one database")
            self._owner = schemas
            if self._connection is None:
                self._connection = self._connect(readonly)
                self._readonly = readonly
            return not self._opened

        def seal() -> None:
            if self._connection is not None:
                self._seal(self._connection)

        def release() -> None:
            if not self._opened and self._connection is not None:
                connection, self._connection = self._connection, None
                self._disconnect(connection)
                self._discard()

        if await self._call(self._locked, connect):
            try:
                await self.run(prepare, write=not storage_readonly)
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await self._call(self._locked, release)
                raise
            if readonly:
                await self._call(self._locked, seal)

    async def run(
        self,
        work: Callable[[SessionInterface], T],
        *,
        write: bool,
        signal: AbortSignal | None = None,
    ) -> T:
        """Runs `work` as one transaction in a worker thread and returns its result.

        A failure rolls the whole transaction back. Raises `DatabaseError` coded `ABORTED` when
        the signal fires (or the awaiting task is cancelled) before the work commits.
        """
        if signal is not None and signal.aborted:
            raise aborted_error()
        if isinstance(work, Replayable) and self._inline > 0:
            await anyio.lowlevel.checkpoint_if_cancelled()
            ran, result = self._run_inline(work, write, signal)
            if ran:
                now = time.perf_counter()
                if now - self._yielded >= self._inline:
                    # Inline calls in a row hold the loop at most about one budget before
                    # other tasks run; the yield cannot turn a committed result into a
                    # cancellation.
                    await anyio.lowlevel.cancel_shielded_checkpoint()
                    self._yielded = time.perf_counter()
                return cast(T, result)
        operation = Operation(signal, self._interrupt_if_active)
        try:
            return await run_in_database_thread(
                self._transaction, work, write, operation, abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            # The worker job may never run (anyio drops a job cancelled before it starts), may
            # still wait for the connection, or may hold it: only the last is waited for, until
            # its statement is interrupted and rolled back, and the wait holds no thread.
            with anyio.CancelScope(shield=True):
                await operation.settle()
            raise

    async def destroy(self, schemas: Mapping[str, TableSchema], *, name: str) -> None:
        """Drops the declared tables and the version stamp of database `name`, removes the
        storage when nothing else is left in it, and closes; later calls raise `CLOSED`.

        The drops are one transaction. The storage is the SQLite file (and its `-wal` / `-shm`
        files) or the PostgreSQL schema, never `public`. It connects if it must but never
        creates tables, so an unopened driver works too.
        """

        def destroy() -> None:
            if self._closed:
                raise closed_error()
            if self._connection is None or not self._healthy(self._connection):
                self._reconnect()
            operation = Operation(None, self._interrupt_if_active)
            operation.begin()
            try:
                self._execute(
                    lambda session: drop_schemas(
                        session, self._dialect, schemas, name=name, introspect=self._introspect
                    ),
                    True,
                    operation,
                )
            finally:
                operation.detach()
            self._closed = True
            connection, self._connection = self._connection, None
            self._vacate(connection)

        await self._call(self._locked, destroy)

    async def close(self) -> None:
        """Closes the connection; later calls raise `DatabaseError` coded `CLOSED`.

        A cancelled caller (a server stopping) still waits for the connection to close, or it
        would be left open for the garbage collector.
        """

        def close() -> None:
            self._closed = True
            if self._connection is not None:
                connection, self._connection = self._connection, None
                self._disconnect(connection)

        with anyio.CancelScope(shield=True):
            await self._call(self._locked, close)

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        return await run_in_database_thread(fn, *args)

    def _locked(self, fn: Callable[[], T]) -> T:
        with self._lock:
            return fn()

    def _transaction(
        self, work: Callable[[SessionInterface], T], write: bool, operation: Operation
    ) -> T:
        try:
            with self._lock:
                return self._hold(work, write, operation)
        finally:
            operation.detach()

    def _hold(self, work: Callable[[SessionInterface], T], write: bool, operation: Operation) -> T:
        """Runs the work's transaction on the connection; the caller holds the lock."""
        if not operation.begin():
            raise aborted_error()
        if self._closed:
            raise closed_error()
        if self._connection is None or not self._healthy(self._connection):
            self._reconnect()
        with self._guard:
            self._active = operation
        operation.attach()
        try:
            return self._execute(work, write, operation)
        finally:
            with self._guard:
                self._active = None

    def _run_inline(
        self, work: Callable[[SessionInterface], T], write: bool, signal: AbortSignal | None
    ) -> tuple[bool, T | None]:
        """Runs replayable work on the calling thread when the connection is free and ready,
        within the inline budget; `(False, None)` when it must run in a worker thread instead:
        the connection was busy, the engine would have waited for a lock, or the work outlived
        the budget (its transaction is then rolled back).
        """
        if not self._lock.acquire(blocking=False):
            return False, None
        operation = Operation(signal, self._interrupt_if_active)
        try:
            connection = self._connection
            if self._closed or connection is None or not self._healthy(connection):
                return False, None
            with self._bounded(connection) as budget:
                try:
                    return True, self._hold(work, write, operation)
                except DatabaseError as error:
                    if budget.spent or (error.context or {}).get("retryable"):
                        return False, None
                    raise
        finally:
            operation.detach()
            self._lock.release()

    def _execute(
        self,
        work: Callable[[SessionInterface], T],
        write: bool,
        operation: Operation,
        connection: Any = None,
    ) -> T:
        if connection is None:
            connection = self._connection
        alone = (
            not write
            and isinstance(work, LoneRead)
            and not (self._readonly and self._readonly_per_transaction)
        )
        try:
            operation.check()
            try:
                # Inside the rollback's reach: SQLite can fail a BEGIN that already began (the
                # inline budget's progress handler runs as the statement ends), and a
                # transaction left open would fail the next unit of work's BEGIN.
                self._begin(connection, write, alone=alone)
                result = work(self._session(connection, operation))
                operation.check()
                self._settle(operation)
                if not alone:
                    self._commit(connection)
            except BaseException:
                self._settle(operation)
                self._rollback(connection)
                raise
            return result
        except Exception as error:
            self._fail(error, operation)

    def _fail(self, error: Exception, operation: Operation) -> NoReturn:
        """Raises what a unit of work that raised `error` raises: `ABORTED` once aborted,
        otherwise a `DatabaseError` as it is and anything else translated."""
        if isinstance(error, DatabaseError):
            if operation.aborted and error.code != "ABORTED":
                raise aborted_error() from error
            raise error
        if isinstance(error, UnicodeEncodeError):
            raise DatabaseError(
                "VALIDATION", "text must be valid Unicode (no lone surrogates)"
            ) from error
        raise (aborted_error() if operation.aborted else self._translate(error)) from error

    def _settle(self, operation: Operation) -> None:
        """Stops interrupting `operation`: COMMIT and ROLLBACK must not be cut short by our own
        watchdog, nor by the inline budget."""
        with self._guard:
            self._active = None

    @property
    def _inline(self) -> float:
        """Seconds replayable work may run on the calling thread first; 0 never does."""
        return 0.0

    def _bounded(self, connection: Any) -> InlineBudget:
        """Makes the engine stop a statement once the inline budget is spent and refuse to wait
        for locks, for one inline unit of work."""
        raise NotImplementedError

    def _reconnect(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                self._disconnect(connection)
        self._connection = self._connect(self._readonly)
        if self._readonly:
            self._seal(self._connection)

    @abstractmethod
    def _discard(self) -> None:
        """Removes storage the failed first open created (a new SQLite file), so a failed open
        leaves nothing behind."""

    def _healthy(self, connection: Any) -> bool:
        """Whether the connection can still run work; a broken one is replaced before the
        next unit of work.
        """
        return True

    def _interrupt_if_active(self, operation: Operation) -> None:
        with self._guard:
            if self._active is operation and self._connection is not None:
                self._interrupt(self._connection)

    @abstractmethod
    def _connect(self, readonly: bool) -> Any:
        """Opens the engine connection."""

    @abstractmethod
    def _seal(self, connection: Any) -> None:
        """Makes an opened connection refuse writes at the engine, for read-only databases."""

    @abstractmethod
    def _disconnect(self, connection: Any) -> None:
        """Closes the engine connection."""

    @abstractmethod
    def _vacate(self, connection: Any) -> None:
        """Closes the connection after `destroy` dropped its tables, removing the storage
        itself when nothing else is left in it."""

    @abstractmethod
    def _begin(self, connection: Any, write: bool, *, alone: bool = False) -> None:
        """Starts a transaction; `alone`, for a `LoneRead`, only readies the connection for
        its one statement, which is a transaction of its own."""

    @abstractmethod
    def _commit(self, connection: Any) -> None:
        """Commits the transaction."""

    @abstractmethod
    def _rollback(self, connection: Any) -> None:
        """Rolls the transaction back, ignoring a transaction that is already gone."""

    @abstractmethod
    def _interrupt(self, connection: Any) -> None:
        """Stops the statement running on the connection, from another thread."""

    @abstractmethod
    def _session(self, connection: Any, operation: Operation) -> SessionInterface:
        """Wraps the connection for one unit of work."""

    @abstractmethod
    def _translate(self, error: Exception) -> DatabaseError:
        """Maps an engine failure to a `DatabaseError`."""

    def _prepare(
        self,
        session: SessionInterface,
        schemas: Mapping[str, TableSchema],
        *,
        name: str,
        version: int | float | None,
        readonly: bool,
    ) -> None:
        """Creates or checks the declared tables inside the opening transaction."""
        prepare_schemas(
            session,
            self._dialect,
            schemas,
            name=name,
            version=version,
            readonly=readonly,
            introspect=self._introspect,
        )

    @abstractmethod
    def _introspect(self, session: SessionInterface, table: str) -> list[StoredColumn] | None:
        """Reads a table's stored columns, or `None` when the table does not exist."""
