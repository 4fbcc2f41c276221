"""The `Table` class: keyed reads and writes, queries, counts and aggregates over one table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, overload

from orkestrel.abort import AbortSignal
from orkestrel.database.codec import RowCodec
from orkestrel.database.compiler import (
    compile_aggregate,
    compile_count,
    compile_records,
    select_all,
)
from orkestrel.database.constants import INLINE_ROWS, KEY_BATCH
from orkestrel.database.errors import DatabaseError
from orkestrel.database.operation import LoneRead, Replayable
from orkestrel.database.schema import TableSchema
from orkestrel.database.statements import table_statements
from orkestrel.database.types import (
    AggregateFunction,
    DriverInterface,
    Key,
    KeyGenerator,
    Keys,
    QueryInput,
    Row,
    Rows,
    SessionInterface,
)

T = TypeVar("T")
Runner = Callable[[Callable[[SessionInterface], T], bool, AbortSignal | None], Awaitable[T]]
Work = Callable[[SessionInterface], Any]
Plan = tuple[bool, Work]
"""One table call, checked and ready to run: whether it writes, and its work on a session."""


def _many(value: Any) -> bool:
    return isinstance(value, list | tuple)


def _rows(row: Any) -> tuple[bool, list[Any]]:
    if isinstance(row, Mapping):
        return True, [row]
    if _many(row):
        return False, list(row)
    raise DatabaseError(
        "VALIDATION", f"a row must be an object or a list of objects, not {type(row).__name__}"
    )


def _keys(key: Any) -> tuple[bool, list[Any]]:
    if _many(key):
        return False, list(key)
    return True, [key]


def _shaped(single: bool, work: Callable[[SessionInterface], list[Any]]) -> Work:
    if not single:
        return work
    return lambda session: work(session)[0]


class Table:
    """Reads and writes one declared table; every call is one transaction.

    Each keyed call takes one key or row and answers with one result, or takes a list and
    answers with a list in the same order. A batch write is atomic: if one row fails (a
    duplicate key, a value that does not fit), none is written.
    """

    __slots__ = ("_codec", "_dialect", "_head", "_run", "_schema", "_statements")

    def __init__(
        self,
        schema: TableSchema,
        driver: DriverInterface,
        generator: KeyGenerator | None,
        run: Runner[Any],
    ) -> None:
        self._schema = schema
        self._dialect = driver.dialect
        self._codec = RowCodec(schema, driver.dialect, generator)
        self._statements = table_statements(schema, driver.dialect)
        self._head = select_all(schema, driver.dialect)
        self._run = run

    @property
    def name(self) -> str:
        """The table's name."""
        return self._schema.name

    @property
    def primary(self) -> str:
        """The primary column's name."""
        return self._schema.primary

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON Schema of one row."""
        return self._schema.row_schema()

    def _lookup(self, session: SessionInterface, keys: list[Any], columns: bool) -> list[Any]:
        parsed = [self._codec.key(k) for k in keys]
        wanted = [k for k in parsed if k is not None]
        found: dict[Any, Any] = {}
        mark = self._dialect.mark
        for start in range(0, len(wanted), KEY_BATCH):
            chunk = wanted[start : start + KEY_BATCH]
            rows = session.rows(self._statements.lookup(len(chunk), mark), chunk)
            for row in self._codec.decode_rows(rows):
                found[row[self._schema.primary]] = row if columns else True
        return [None if k is None else found.get(k) for k in parsed]

    def _plan_get(self, key: Any) -> Plan:
        single, keys = _keys(key)
        return False, _shaped(single, lambda s: self._lookup(s, keys, True))

    def _plan_has(self, key: Any) -> Plan:
        single, keys = _keys(key)

        def work(session: SessionInterface) -> list[bool]:
            return [bool(item) for item in self._lookup(session, keys, False)]

        return False, _shaped(single, work)

    def _plan_keys(self) -> Plan:
        def work(session: SessionInterface) -> list[Key]:
            rows = session.rows(self._statements.keys)
            return [self._codec.decode_key(values[0]) for values in rows]

        return False, work

    def _plan_write(self, row: Any, sql: str) -> Plan:
        single, rows = _rows(row)

        def work(session: SessionInterface) -> list[Key]:
            if not rows:
                return []
            keys, batch = self._codec.encode_rows(rows)
            if len(batch) == 1:
                session.run(sql, batch[0])
            else:
                session.many(sql, batch)
            return keys

        return True, _shaped(single, work)

    def _plan_add(self, row: Any) -> Plan:
        return self._plan_write(row, self._statements.insert)

    def _plan_set(self, row: Any) -> Plan:
        return self._plan_write(row, self._statements.upsert)

    def _plan_update(self, key: Any, changes: Any) -> Plan:
        single, keys = _keys(key)
        names, params, renamed = self._codec.changes(changes)
        sql = self._statements.update(self._schema, self._dialect, names) if names else ""

        def work(session: SessionInterface) -> list[bool]:
            results: list[bool] = []
            for item in keys:
                parsed = self._codec.key(item)
                if parsed is None:
                    results.append(False)
                    continue
                if renamed is not None and renamed != parsed:
                    raise DatabaseError(
                        "VALIDATION",
                        f"update cannot change primary column {self._schema.primary!r}",
                        {"table": self._schema.name},
                    )
                if sql:
                    results.append(session.run(sql, [*params, parsed]) > 0)
                else:
                    results.append(bool(session.rows(self._statements.exists, [parsed])))
            return results

        return True, _shaped(single, work)

    def _plan_remove(self, key: Any) -> Plan:
        single, keys = _keys(key)

        def work(session: SessionInterface) -> list[bool]:
            results: list[bool] = []
            for item in keys:
                parsed = self._codec.key(item)
                removed = parsed is not None and session.run(self._statements.delete, [parsed]) > 0
                results.append(removed)
            return results

        return True, _shaped(single, work)

    def _plan_records(self, query: Any) -> Plan:
        statement = compile_records(self._schema, self._dialect, query, self._head)
        return False, LoneRead(statement.sql, statement.params, self._codec.decode_rows)

    def _plan_count(self, query: Any) -> Plan:
        statement = compile_count(self._schema, self._dialect, query)
        return False, LoneRead(statement.sql, statement.params, lambda rows: int(rows[0][0]))

    def _plan_aggregate(self, function: Any, column: Any, query: Any) -> Plan:
        statement = compile_aggregate(self._schema, self._dialect, function, column, query)

        def shape(rows: list[tuple[Any, ...]]) -> int | float | None:
            value = rows[0][0]
            if value is None:
                return None
            if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
                return int(value)
            result: int | float = value
            return result

        return False, LoneRead(statement.sql, statement.params, shape)

    def _plan_clear(self) -> Plan:
        return True, lambda s: int(s.run(self._statements.clear))

    async def _call(self, plan: Plan, signal: AbortSignal | None, batch: Any = None) -> Any:
        # Table work touches nothing but its transaction, so it may be replayed; a big batch
        # would outlive the inline budget, so it goes straight to a worker thread.
        write, work = plan
        if not isinstance(work, Replayable) and (not _many(batch) or len(batch) <= INLINE_ROWS):
            work = Replayable(work)
        return await self._run(work, write, signal)

    @overload
    async def get(self, key: Key, *, signal: AbortSignal | None = None) -> Row | None: ...
    @overload
    async def get(self, key: Keys, *, signal: AbortSignal | None = None) -> list[Row | None]: ...
    async def get(self, key: Key | Keys, *, signal: AbortSignal | None = None) -> Any:
        """Reads the row stored under a key (`None` when absent), or a list of rows for a list
        of keys.
        """
        return await self._call(self._plan_get(key), signal)

    @overload
    async def has(self, key: Key, *, signal: AbortSignal | None = None) -> bool: ...
    @overload
    async def has(self, key: Keys, *, signal: AbortSignal | None = None) -> list[bool]: ...
    async def has(self, key: Key | Keys, *, signal: AbortSignal | None = None) -> Any:
        """Determines whether a row is stored under a key, or under each key of a list."""
        return await self._call(self._plan_has(key), signal)

    async def keys(self, *, signal: AbortSignal | None = None) -> list[Key]:
        """Lists every stored key in key order."""
        keys: list[Key] = await self._call(self._plan_keys(), signal)
        return keys

    async def _write(self, row: Any, plan: Plan, signal: AbortSignal | None) -> Any:
        if _many(row) and not row:
            return []
        return await self._call(plan, signal, row)

    @overload
    async def add(self, row: Mapping[str, Any], *, signal: AbortSignal | None = None) -> Key: ...
    @overload
    async def add(self, row: Rows, *, signal: AbortSignal | None = None) -> list[Key]: ...
    async def add(self, row: Mapping[str, Any] | Rows, *, signal: AbortSignal | None = None) -> Any:
        """Inserts one row or a list of rows and returns the key(s); a key that already exists
        raises `DatabaseError` coded `CONFLICT` and writes nothing.
        """
        return await self._write(row, self._plan_add(row), signal)

    @overload
    async def set(self, row: Mapping[str, Any], *, signal: AbortSignal | None = None) -> Key: ...
    @overload
    async def set(self, row: Rows, *, signal: AbortSignal | None = None) -> list[Key]: ...
    async def set(self, row: Mapping[str, Any] | Rows, *, signal: AbortSignal | None = None) -> Any:
        """Inserts or fully replaces one row or a list of rows and returns the key(s)."""
        return await self._write(row, self._plan_set(row), signal)

    @overload
    async def update(
        self, key: Key, changes: Mapping[str, Any], *, signal: AbortSignal | None = None
    ) -> bool: ...
    @overload
    async def update(
        self, key: Keys, changes: Mapping[str, Any], *, signal: AbortSignal | None = None
    ) -> list[bool]: ...
    async def update(
        self, key: Key | Keys, changes: Mapping[str, Any], *, signal: AbortSignal | None = None
    ) -> Any:
        """Merges changes into the row under a key (or each key of a list), answering whether
        each row existed.

        A `None` change clears an optional cell; clearing a required one, or changing the primary
        column to another value, raises `VALIDATION`.
        """
        return await self._call(self._plan_update(key, changes), signal, key)

    @overload
    async def remove(self, key: Key, *, signal: AbortSignal | None = None) -> bool: ...
    @overload
    async def remove(self, key: Keys, *, signal: AbortSignal | None = None) -> list[bool]: ...
    async def remove(self, key: Key | Keys, *, signal: AbortSignal | None = None) -> Any:
        """Deletes the row under a key (or each key of a list), answering whether each existed."""
        return await self._call(self._plan_remove(key), signal, key)

    async def records(
        self, query: QueryInput | None = None, *, signal: AbortSignal | None = None
    ) -> list[Row]:
        """Reads the rows a query matches: conditions folded left to right, sorted by `order`
        then by key, and paged by `limit` / `offset`.
        """
        rows: list[Row] = await self._call(self._plan_records(query), signal)
        return rows

    async def count(
        self, query: QueryInput | None = None, *, signal: AbortSignal | None = None
    ) -> int:
        """Counts the rows a query matches, ignoring its paging."""
        count: int = await self._call(self._plan_count(query), signal)
        return count

    async def aggregate(
        self,
        function: AggregateFunction,
        column: str,
        query: QueryInput | None = None,
        *,
        signal: AbortSignal | None = None,
    ) -> int | float | None:
        """Computes `count`, `sum`, `average`, `minimum` or `maximum` over the rows a query
        matches; everything but `count` is `None` when no cell has a value.
        """
        value: int | float | None = await self._call(
            self._plan_aggregate(function, column, query), signal
        )
        return value

    async def clear(self, *, signal: AbortSignal | None = None) -> int:
        """Deletes every row and returns how many there were."""
        count: int = await self._call(self._plan_clear(), signal)
        return count
