"""One transaction over several table calls: the `Transaction` a `Database.transaction` work
function receives, and the synchronous table views it hands out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, overload

from orkestrel.contract.helpers import preview
from orkestrel.database.errors import DatabaseError
from orkestrel.database.table import Plan, Table
from orkestrel.database.types import (
    AggregateFunction,
    Key,
    Keys,
    QueryInput,
    Row,
    Rows,
    SessionInterface,
)


class Transaction:
    """Runs table calls inside one transaction of `Database.transaction`, from the worker thread
    that runs the work; everything it did commits together when the work returns, or rolls back
    when the work raises.

    A transaction opened with `write=False` refuses writes with `VALIDATION`. After one call
    fails, later calls raise `VALIDATION` (the work should let the failure propagate); once the
    work has returned, every call raises `CLOSED`.
    """

    __slots__ = (
        "_active",
        "_dialect",
        "_failure",
        "_session",
        "_tables",
        "_translate",
        "_views",
        "_write",
    )

    def __init__(
        self,
        tables: Mapping[str, Table],
        session: SessionInterface,
        write: bool,
        translate: Callable[[Exception], Exception],
        dialect: str = "sqlite",
    ) -> None:
        self._tables = tables
        self._dialect = dialect
        self._translate = translate
        self._session = session
        self._write = write
        self._active = True
        self._failure: BaseException | None = None
        self._views: dict[str, TransactionTable] = {}

    @property
    def write(self) -> bool:
        """Whether the transaction may write."""
        return self._write

    @property
    def active(self) -> bool:
        """Whether the work is still running, so the transaction still takes calls."""
        return self._active

    def exclusive(self, name: str) -> None:
        """Makes every other transaction that asks for `name` wait until this one ends: on
        PostgreSQL a transaction-level advisory lock, held against every connection and process;
        SQLite runs one writer at a time already."""
        if self._dialect != "postgres":
            return
        statement = "SELECT pg_advisory_xact_lock(hashtext(%s))"
        self._execute((False, lambda session: session.rows(statement, [name])))

    def table(self, name: str) -> TransactionTable:
        """Returns the view of a declared table inside this transaction; an undeclared name
        raises `DatabaseError` coded `NOT_FOUND`.
        """
        view = self._views.get(name) if isinstance(name, str) else None
        if view is not None:
            return view
        table = self._tables.get(name) if isinstance(name, str) else None
        if table is None:
            raise DatabaseError(
                "NOT_FOUND", f"the database has no table {preview(name)}", {"table": preview(name)}
            )
        view = TransactionTable(self, table)
        self._views[name] = view
        return view

    def _execute(self, plan: Plan) -> Any:
        write, work = plan
        if not self._active:
            raise DatabaseError("CLOSED", "the transaction has ended")
        if self._failure is not None:
            raise DatabaseError("VALIDATION", "an earlier call of this transaction failed")
        if write and not self._write:
            raise DatabaseError("VALIDATION", "a read-only transaction cannot write")
        try:
            return work(self._session)
        except Exception as error:
            failure = self._translate(error)
            self._failure = failure
            if failure is error:
                raise
            raise failure from error
        except BaseException as error:
            self._failure = error
            raise

    def _failed(self, error: BaseException) -> bool:
        """Whether `error` is what one of the transaction's own calls raised."""
        return error is self._failure

    def _end(self) -> None:
        self._active = False


class TransactionTable:
    """Reads and writes one table inside a `Transaction`: the `Table` calls, synchronous, with
    the same arguments and answers, all part of the one transaction.
    """

    __slots__ = ("_table", "_transaction")

    def __init__(self, transaction: Transaction, table: Table) -> None:
        self._transaction = transaction
        self._table = table

    @property
    def name(self) -> str:
        """The table's name."""
        return self._table.name

    @property
    def primary(self) -> str:
        """The primary column's name."""
        return self._table.primary

    @overload
    def get(self, key: Key) -> Row | None: ...
    @overload
    def get(self, key: Keys) -> list[Row | None]: ...
    def get(self, key: Key | Keys) -> Any:
        """Reads the row stored under a key (`None` when absent), or a list of rows for a list
        of keys.
        """
        return self._transaction._execute(self._table._plan_get(key))

    @overload
    def has(self, key: Key) -> bool: ...
    @overload
    def has(self, key: Keys) -> list[bool]: ...
    def has(self, key: Key | Keys) -> Any:
        """Determines whether a row is stored under a key, or under each key of a list."""
        return self._transaction._execute(self._table._plan_has(key))

    def keys(self) -> list[Key]:
        """Lists every stored key in key order."""
        keys: list[Key] = self._transaction._execute(self._table._plan_keys())
        return keys

    @overload
    def add(self, row: Mapping[str, Any]) -> Key: ...
    @overload
    def add(self, row: Rows) -> list[Key]: ...
    def add(self, row: Mapping[str, Any] | Rows) -> Any:
        """Inserts one row or a list of rows and returns the key(s); a key that already exists
        raises `DatabaseError` coded `CONFLICT`.
        """
        return self._transaction._execute(self._table._plan_add(row))

    @overload
    def set(self, row: Mapping[str, Any]) -> Key: ...
    @overload
    def set(self, row: Rows) -> list[Key]: ...
    def set(self, row: Mapping[str, Any] | Rows) -> Any:
        """Inserts or fully replaces one row or a list of rows and returns the key(s)."""
        return self._transaction._execute(self._table._plan_set(row))

    @overload
    def update(self, key: Key, changes: Mapping[str, Any]) -> bool: ...
    @overload
    def update(self, key: Keys, changes: Mapping[str, Any]) -> list[bool]: ...
    def update(self, key: Key | Keys, changes: Mapping[str, Any]) -> Any:
        """Merges changes into the row under a key (or each key of a list), answering whether
        each row existed.
        """
        return self._transaction._execute(self._table._plan_update(key, changes))

    @overload
    def remove(self, key: Key) -> bool: ...
    @overload
    def remove(self, key: Keys) -> list[bool]: ...
    def remove(self, key: Key | Keys) -> Any:
        """Deletes the row under a key (or each key of a list), answering whether each existed."""
        return self._transaction._execute(self._table._plan_remove(key))

    def records(self, query: QueryInput | None = None) -> list[Row]:
        """Reads the rows a query matches, sorted by `order` then by key, and paged."""
        rows: list[Row] = self._transaction._execute(self._table._plan_records(query))
        return rows

    def count(self, query: QueryInput | None = None) -> int:
        """Counts the rows a query matches, ignoring its paging."""
        count: int = self._transaction._execute(self._table._plan_count(query))
        return count

    def aggregate(
        self, function: AggregateFunction, column: str, query: QueryInput | None = None
    ) -> int | float | None:
        """Computes `count`, `sum`, `average`, `minimum` or `maximum` over the rows a query
        matches.
        """
        value: int | float | None = self._transaction._execute(
            self._table._plan_aggregate(function, column, query)
        )
        return value

    def clear(self) -> int:
        """Deletes every row and returns how many there were."""
        count: int = self._transaction._execute(self._table._plan_clear())
        return count
