"""The SQLite driver over the standard library's `sqlite3`: a file, or a private in-memory
database.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from orkestrel import _core
from orkestrel._errors import message_of
from orkestrel.database.constants import INLINE_BUDGET
from orkestrel.database.dialect import sqlite_dialect
from orkestrel.database.drivers.base import ThreadedDriver
from orkestrel.database.errors import DatabaseError
from orkestrel.database.migrate import StoredColumn
from orkestrel.database.operation import Operation
from orkestrel.database.types import SessionInterface

MEMORY = ":memory:"
"""The path that makes a private in-memory database."""

_CONFLICT = frozenset({"SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"})
_RETRYABLE = frozenset({"SQLITE_BUSY", "SQLITE_LOCKED"})
_PROGRESS_STEPS = 500
"""Virtual-machine steps between two looks at the inline budget's clock."""
_MATCHERS = ("orkestrel_like(", "orkestrel_glob(")


class _Budget:
    """The inline budget of one unit of work on one connection (see `InlineBudget`)."""

    __slots__ = ("_connection", "_driver", "deadline", "spent")

    def __init__(self, driver: SQLiteDriver, connection: sqlite3.Connection) -> None:
        self._driver = driver
        self._connection = connection
        self.deadline = time.perf_counter() + driver._seconds
        self.spent = False

    def __enter__(self) -> _Budget:
        self._connection.set_progress_handler(self.progress, _PROGRESS_STEPS)
        self._driver._bounding = self
        return self

    def __exit__(self, *exc: object) -> None:
        self._driver._bounding = None
        self._connection.set_progress_handler(None, 0)

    def progress(self) -> int:
        """SQLite's progress handler: a nonzero answer stops the running statement."""
        if time.perf_counter() < self.deadline:
            return 0
        self.spent = True
        return 1

    def admit(self, sql: str) -> None:
        """Refuses a statement that calls a pattern matcher: one call can run long within one
        engine step, out of the progress handler's reach, so it runs in a worker thread."""
        if _MATCHERS[0] in sql or _MATCHERS[1] in sql:
            self.spent = True
            raise DatabaseError("DRIVER", "the statement runs in a worker thread")


class SQLiteSession:
    """Runs statements on a SQLite connection inside one unit of work."""

    __slots__ = ("_budget", "_connection", "_operation")

    def __init__(
        self, connection: sqlite3.Connection, operation: Operation, budget: _Budget | None
    ) -> None:
        self._connection = connection
        self._operation = operation
        self._budget = budget

    def _check(self, sql: str) -> None:
        self._operation.check()
        if self._budget is not None:
            self._budget.admit(sql)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Runs a statement and returns every row it yields."""
        self._check(sql)
        return self._connection.execute(sql, params).fetchall()

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Runs a statement and returns how many rows it changed."""
        self._check(sql)
        return self._connection.execute(sql, params).rowcount

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        """Runs one statement once per parameter list."""
        self._check(sql)
        self._connection.executemany(sql, params)


class SQLiteDriver(ThreadedDriver):
    """Keeps a database in one SQLite file, or in memory for the process's lifetime.

    Writes take the file's write lock up front (`BEGIN IMMEDIATE`) and wait up to `busy`
    seconds for it. A read-only open uses `mode=ro` plus `PRAGMA query_only`, so the engine
    itself refuses every write, and changes no file: with no writer about (no `-wal` file) it
    adds `immutable=1`, so it also works on a read-only directory. `like` and `glob` run through
    the Rust matchers, registered as SQL functions, so a hostile pattern cannot make SQLite
    backtrack.
    """

    def __init__(
        self, path: str | Path = MEMORY, *, busy: float = 5.0, inline: float = INLINE_BUDGET
    ) -> None:
        strict = sqlite3.sqlite_version_info >= (3, 37, 0)
        super().__init__(sqlite_dialect(strict=strict))
        self._path = str(path)
        self._busy = busy
        self._seconds = max(0.0, inline)
        self._bounding: _Budget | None = None
        self._waits = True
        self._fresh = False
        self._immutable = False

    @property
    def path(self) -> str:
        """The database file, or `:memory:`."""
        return self._path

    @property
    def durable(self) -> bool:
        """Whether rows outlive the process: true for a file."""
        return self._path != MEMORY

    def _connect(self, readonly: bool) -> sqlite3.Connection:
        self._waits = True
        try:
            if self._path == MEMORY:
                connection = sqlite3.connect(
                    MEMORY, isolation_level=None, check_same_thread=False, timeout=self._busy
                )
            elif readonly:
                connection = self._connect_readonly()
            else:
                self._fresh = not os.path.lexists(self._path)
                connection = self._open(f"file:{quote(self._path)}?mode=rwc")
        except sqlite3.Error as error:
            raise self._translate(error) from error
        try:
            connection.create_function("orkestrel_like", 2, _core.like_match, deterministic=True)
            connection.create_function("orkestrel_glob", 2, _core.glob_match, deterministic=True)
            if self._path != MEMORY and not readonly:
                connection.execute("PRAGMA journal_mode=WAL")
            if readonly and self._path != MEMORY:
                connection.execute("PRAGMA query_only=ON")
        except sqlite3.Error as error:
            connection.close()
            raise self._translate(error) from error
        return connection

    def _open(self, uri: str) -> sqlite3.Connection:
        return sqlite3.connect(
            uri, uri=True, isolation_level=None, check_same_thread=False, timeout=self._busy
        )

    def _connect_readonly(self) -> sqlite3.Connection:
        """Opens the file read-only without creating or changing any file.

        With no `-wal` file no writer has the database open, so `immutable=1` reads the file
        alone, with no journal, no shared-memory file and no lock: it works on a read-only
        directory or mount. A `-wal` file means a writer may be live (or one crashed), and its
        pages must be read: `mode=ro` shares the writer's journal, and falls back to the file
        alone where the journal cannot be opened (a read-only mount).
        """
        base = f"file:{quote(self._path)}?mode=ro"
        if os.path.lexists(self._path + "-wal"):
            connection = self._open(base)
            try:
                connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
            except sqlite3.OperationalError:
                connection.close()
            except BaseException:
                connection.close()
                raise
            else:
                self._immutable = False
                return connection
        self._immutable = True
        return self._open(f"{base}&immutable=1")

    def _healthy(self, connection: sqlite3.Connection) -> bool:
        # A writer that opened the file since turns an immutable reader stale: reopen it.
        return not (self._immutable and os.path.lexists(self._path + "-wal"))

    def _seal(self, connection: sqlite3.Connection) -> None:
        connection.execute("PRAGMA query_only=ON")

    def _disconnect(self, connection: sqlite3.Connection) -> None:
        connection.close()

    def _discard(self) -> None:
        if self._fresh:
            self._unlink()

    def _unlink(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path + suffix)

    def _vacate(self, connection: sqlite3.Connection) -> None:
        try:
            empty = not connection.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        finally:
            connection.close()
        if empty and self._path != MEMORY:
            self._unlink()

    def _begin(self, connection: sqlite3.Connection, write: bool, *, alone: bool = False) -> None:
        # An inline call must never sleep on the loop's thread waiting for another connection's
        # lock: it fails at once and runs again in a worker thread, which waits. The setting
        # is changed only when the path changes, since a PRAGMA costs as much as the BEGIN.
        wait = self._bounding is None
        if wait != self._waits:
            connection.execute(f"PRAGMA busy_timeout = {int(self._busy * 1000) if wait else 0}")
            self._waits = wait
        if not alone:
            connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")

    def _commit(self, connection: sqlite3.Connection) -> None:
        connection.execute("COMMIT")

    def _rollback(self, connection: sqlite3.Connection) -> None:
        for _ in range(3):
            if not connection.in_transaction:
                return
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")

    @property
    def _inline(self) -> float:
        return self._seconds

    def _bounded(self, connection: sqlite3.Connection) -> _Budget:
        return _Budget(self, connection)

    def _settle(self, operation: Operation) -> None:
        super()._settle(operation)
        if self._bounding is not None and self._connection is not None:
            # COMMIT and ROLLBACK of an inline call must not be stopped by its budget.
            self._connection.set_progress_handler(None, 0)

    def _interrupt(self, connection: sqlite3.Connection) -> None:
        connection.interrupt()

    def _session(self, connection: sqlite3.Connection, operation: Operation) -> SessionInterface:
        return SQLiteSession(connection, operation, self._bounding)

    def _introspect(self, session: SessionInterface, table: str) -> list[StoredColumn] | None:
        rows = session.rows('SELECT name, type, "notnull" FROM pragma_table_info(?)', [table])
        if not rows:
            return None
        return [StoredColumn(name, kind, not notnull) for name, kind, notnull in rows]

    def _translate(self, error: Exception) -> DatabaseError:
        name = getattr(error, "sqlite_errorname", "")
        context: dict[str, Any] = {"engine": "sqlite", "cause": repr(error), "retryable": False}
        if name in _CONFLICT:
            return DatabaseError("CONFLICT", "a row with this key already exists", context)
        if name in _RETRYABLE:
            context["retryable"] = True
            return DatabaseError("DRIVER", f"the database is busy: {error}", context)
        if name.startswith("SQLITE_READONLY") or "readonly" in str(error):
            context["readonly"] = True
            return DatabaseError("DRIVER", f"the database is read-only: {error}", context)
        return DatabaseError("DRIVER", f"sqlite failed: {message_of(error)}", context)
