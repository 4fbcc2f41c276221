"""The `Database` class: declared tables over one driver, connected lazily on first use."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import TypeVar

from orkestrel.abort import AbortSignal
from orkestrel.contract.helpers import preview
from orkestrel.database.dialect import Dialect
from orkestrel.database.drivers.base import translate_error
from orkestrel.database.drivers.sqlite import SQLiteDriver
from orkestrel.database.errors import DatabaseError
from orkestrel.database.schema import TableSchema, build_schemas
from orkestrel.database.table import Table
from orkestrel.database.transaction import Transaction
from orkestrel.database.types import (
    DatabaseStatus,
    DriverInterface,
    IndexMap,
    KeyGenerator,
    PrimaryMap,
    SessionInterface,
    TableExport,
    TableMap,
)

T = TypeVar("T")


class _WorkFailure(DatabaseError):
    """Carries an exception a transaction's work raised through the driver, which would
    otherwise translate it into `DRIVER`, so the caller gets the work's own exception back."""

    def __init__(self, error: Exception) -> None:
        super().__init__("DRIVER", str(error))
        self.error = error


_DRIVER_MEMBERS = ("dialect", "closed", "durable", "open", "run", "destroy", "close")


def _check_driver(driver: object) -> None:
    missing = [name for name in _DRIVER_MEMBERS if not hasattr(driver, name)]
    dialect = getattr(driver, "dialect", None)
    if missing or not isinstance(dialect, Dialect):
        raise DatabaseError(
            "CONFORMANCE",
            "the driver does not implement DriverInterface",
            {"missing": missing or ["dialect"]},
        )


class Database:
    """Serves declared tables over one driver; the connection opens on first use.

    `driver` defaults to a private in-memory SQLite database. Opening creates missing tables
    and indexes and refuses stored tables whose columns differ from the declaration; with a
    `version`, it also stamps the version and schema in a metadata table and checks them on
    every later open. `readonly` opens the engine read-only, so the engine itself refuses every
    write.
    """

    __slots__ = ("_driver", "_name", "_readonly", "_schemas", "_status", "_tables", "_version")

    def __init__(
        self,
        *,
        tables: TableMap,
        driver: DriverInterface | None = None,
        primary: PrimaryMap | None = None,
        indexes: IndexMap | None = None,
        name: str | None = None,
        generator: KeyGenerator | None = None,
        version: int | float | None = None,
        readonly: bool = False,
    ) -> None:
        if version is not None and (
            isinstance(version, bool)
            or not isinstance(version, int | float)
            or not math.isfinite(version)
        ):
            raise DatabaseError(
                "VALIDATION", f"version must be a finite number, not {preview(version)}"
            )
        if name is not None and (not isinstance(name, str) or not name):
            raise DatabaseError("VALIDATION", "name must be a non-empty string")
        if generator is not None and not callable(generator):
            raise DatabaseError("VALIDATION", "generator must be callable")
        self._schemas: dict[str, TableSchema] = build_schemas(tables, primary, indexes)
        if driver is not None:
            _check_driver(driver)
        self._driver: DriverInterface = driver if driver is not None else SQLiteDriver()
        self._name = name or "default"
        self._version = version
        self._readonly = bool(readonly)
        self._status: DatabaseStatus = "idle"
        self._tables = {
            name: Table(schema, self._driver, generator, self._run)
            for name, schema in self._schemas.items()
        }

    @property
    def name(self) -> str:
        """The database's name, which keys its version stamp."""
        return self._name

    @property
    def status(self) -> DatabaseStatus:
        """`idle` before first use, `open` once connected, `closed` after `close`."""
        return self._status

    @property
    def readonly(self) -> bool:
        """Whether the engine was opened read-only."""
        return self._readonly

    @property
    def version(self) -> int | float | None:
        """The version the database was declared with (stamped into storage when it opens), if
        any."""
        return self._version

    @property
    def driver(self) -> DriverInterface:
        """The driver the database runs on."""
        return self._driver

    def table(self, name: str) -> Table:
        """Returns a declared table; an undeclared name raises `DatabaseError` coded
        `NOT_FOUND`.
        """
        table = self._tables.get(name) if isinstance(name, str) else None
        if table is None:
            raise DatabaseError(
                "NOT_FOUND",
                f"database {self._name!r} has no table {preview(name)}",
                {"table": preview(name)},
            )
        return table

    def tables(self) -> list[str]:
        """Lists the declared table names in declaration order."""
        return list(self._schemas)

    def export(self) -> dict[str, TableExport]:
        """Returns every table's declaration (primary column, columns, indexes) as plain data."""
        return {name: schema.export() for name, schema in self._schemas.items()}

    async def open(self) -> None:
        """Connects and prepares the declared tables; later calls return at once, and a call
        after `close` raises `CLOSED`.

        A failed open (a `MIGRATION` conflict, an unreachable server) leaves the database `idle`,
        so it may be tried again.
        """
        if self._status == "open":
            return
        if self._status == "closed":
            raise DatabaseError("CLOSED", f"database {self._name!r} is closed")
        await self._driver.open(
            self._schemas, name=self._name, version=self._version, readonly=self._readonly
        )
        if self._status == "idle":
            self._status = "open"

    async def destroy(self) -> None:
        """Removes the database's data and closes it for good.

        It drops the declared tables and the version stamp, then the storage itself (the SQLite
        file, the PostgreSQL schema) when nothing else is left there; it works on a database
        that was never opened. A read-only or closed database raises `VALIDATION` or `CLOSED`
        and keeps everything.
        """
        if self._status == "closed":
            raise DatabaseError("CLOSED", f"database {self._name!r} is closed")
        if self._readonly:
            raise DatabaseError(
                "VALIDATION", f"database {self._name!r} is read-only and cannot be destroyed"
            )
        await self._driver.destroy(self._schemas, name=self._name)
        self._status = "closed"

    async def close(self) -> None:
        """Closes the connection for good; closing twice does nothing."""
        if self._status == "closed":
            return
        self._status = "closed"
        await self._driver.close()

    async def transaction(
        self,
        work: Callable[[Transaction], T],
        *,
        write: bool = True,
        signal: AbortSignal | None = None,
    ) -> T:
        """Runs `work` with a `Transaction` as one transaction in a worker thread and returns
        its result: every table call it makes commits together, or none does when it raises.

        `work` is a plain function (a coroutine function is refused with `VALIDATION`); it holds
        the database's connection while it runs, so it must not await other calls on this
        database. `write=False` runs a read-only transaction that refuses writes. The `signal`
        interrupts the running statement and rolls everything back as `ABORTED`.
        """
        if inspect.iscoroutinefunction(work):
            raise DatabaseError("VALIDATION", "transaction work must be a plain function")
        tables, driver = self._tables, self._driver

        def unit(session: SessionInterface) -> T:
            transaction = Transaction(
                tables,
                session,
                bool(write),
                lambda error: translate_error(driver, error),
                driver.dialect.name,
            )
            try:
                result = work(transaction)
            except DatabaseError:
                raise
            except Exception as error:
                if transaction._failed(error):
                    raise
                raise _WorkFailure(error) from error
            finally:
                transaction._end()
            if inspect.isawaitable(result):
                close = getattr(result, "close", None)
                if callable(close):
                    close()
                raise DatabaseError("VALIDATION", "transaction work must not return an awaitable")
            return result

        try:
            return await self._run(unit, bool(write), signal)
        except _WorkFailure as failure:
            raise failure.error from None

    async def __aenter__(self) -> Database:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _run(
        self, work: Callable[[SessionInterface], T], write: bool, signal: AbortSignal | None
    ) -> T:
        await self.open()
        return await self._driver.run(work, write=write, signal=signal)

    def __repr__(self) -> str:
        return f"<Database {self._name!r} {self._status} tables={list(self._schemas)!r}>"
