"""The `Table` class: keyed reads and writes, queries, counts and aggregates over one table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, overload

from orkestrel.abort import AbortSignal
from orkestrel.database.codec import RowCodec
from orkestrel.database.compiler import compile_aggregate, compile_count, compile_records
from orkestrel.database.constants import KEY_BATCH
from orkestrel.database.errors import DatabaseError
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


class Table:
    """Reads and writes one declared table; every call is one transaction.

    Each keyed call takes one key or row and answers with one result, or takes a list and
    answers with a list in the same order. A batch write is atomic: if one row fails (a
    duplicate key, a value that does not fit), none is written.
    """

    __slots__ = ("_codec", "_dialect", "_run", "_schema", "_statements")

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

    def _keys(self, key: Any) -> tuple[bool, list[Any]]:
        if _many(key):
            return False, list(key)
        return True, [key]

    def _lookup(self, session: SessionInterface, keys: list[Any], columns: bool) -> list[Any]:
        parsed = [self._codec.key(k) for k in keys]
        wanted = [k for k in parsed if k is not None]
        found: dict[Any, Any] = {}
        mark = self._dialect.mark
        for start in range(0, len(wanted), KEY_BATCH):
            chunk = wanted[start : start + KEY_BATCH]
            for values in session.rows(self._statements.lookup(len(chunk), mark), chunk):
                row = self._codec.decode(values)
                found[row[self._schema.primary]] = row if columns else True
        return [None if k is None else found.get(k) for k in parsed]

    @overload
    async def get(self, key: Key, *, signal: AbortSignal | None = None) -> Row | None: ...
    @overload
    async def get(self, key: Keys, *, signal: AbortSignal | None = None) -> list[Row | None]: ...
    async def get(self, key: Key | Keys, *, signal: AbortSignal | None = None) -> Any:
        """Reads the row stored under a key (`None` when absent), or a list of rows for a list
        of keys.
        """
        single, keys = self._keys(key)
        rows = await self._run(lambda s: self._lookup(s, keys, True), False, signal)
        return rows[0] if single else rows

    @overload
    async def has(self, key: Key, *, signal: AbortSignal | None = None) -> bool: ...
    @overload
    async def has(self, key: Keys, *, signal: AbortSignal | None = None) -> list[bool]: ...
    async def has(self, key: Key | Keys, *, signal: AbortSignal | None = None) -> Any:
        """Determines whether a row is stored under a key, or under each key of a list."""
        single, keys = self._keys(key)
        found = await self._run(lambda s: self._lookup(s, keys, False), False, signal)
        flags = [bool(item) for item in found]
        return flags[0] if single else flags

    async def keys(self, *, signal: AbortSignal | None = None) -> list[Key]:
        """Lists every stored key in key order."""
        rows = await self._run(lambda s: s.rows(self._statements.keys), False, signal)
        return [self._codec.decode_key(values[0]) for values in rows]

    async def _write(self, row: Any, sql: str, signal: AbortSignal | None) -> Any:
        single, rows = _rows(row)
        if not rows:
            return []

        def work(session: SessionInterface) -> list[Key]:
            keys, batch = self._codec.encode_rows(rows)
            if len(batch) == 1:
                session.run(sql, batch[0])
            else:
                session.many(sql, batch)
            return keys

        keys = await self._run(work, True, signal)
        return keys[0] if single else keys

    @overload
    async def add(self, row: Mapping[str, Any], *, signal: AbortSignal | None = None) -> Key: ...
    @overload
    async def add(self, row: Rows, *, signal: AbortSignal | None = None) -> list[Key]: ...
    async def add(self, row: Mapping[str, Any] | Rows, *, signal: AbortSignal | None = None) -> Any:
        """Inserts one row or a list of rows and returns the key(s); a key that already exists
        raises `DatabaseError` coded `CONFLICT` and writes nothing.
        """
        return await self._write(row, self._statements.insert, signal)

    @overload
    async def set(self, row: Mapping[str, Any], *, signal: AbortSignal | None = None) -> Key: ...
    @overload
    async def set(self, row: Rows, *, signal: AbortSignal | None = None) -> list[Key]: ...
    async def set(self, row: Mapping[str, Any] | Rows, *, signal: AbortSignal | None = None) -> Any:
        """Inserts or fully replaces one row or a list of rows and returns the key(s)."""
        return await self._write(row, self._statements.upsert, signal)

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
        single, keys = self._keys(key)
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

        updated = await self._run(work, True, signal)
        return updated[0] if single else updated

    @overload
    async def remove(self, key: Key, *, signal: AbortSignal | None = None) -> bool: ...
    @overload
    async def remove(self, key: Keys, *, signal: AbortSignal | None = None) -> list[bool]: ...
    async def remove(self, key: Key | Keys, *, signal: AbortSignal | None = None) -> Any:
        """Deletes the row under a key (or each key of a list), answering whether each existed."""
        single, keys = self._keys(key)

        def work(session: SessionInterface) -> list[bool]:
            results: list[bool] = []
            for item in keys:
                parsed = self._codec.key(item)
                removed = parsed is not None and session.run(self._statements.delete, [parsed]) > 0
                results.append(removed)
            return results

        removed = await self._run(work, True, signal)
        return removed[0] if single else removed

    async def records(
        self, query: QueryInput | None = None, *, signal: AbortSignal | None = None
    ) -> list[Row]:
        """Reads the rows a query matches: conditions folded left to right, sorted by `order`
        then by key, and paged by `limit` / `offset`.
        """
        statement = compile_records(self._schema, self._dialect, query)
        decode = self._codec.decode

        def work(session: SessionInterface) -> list[Row]:
            return [decode(values) for values in session.rows(statement.sql, statement.params)]

        rows: list[Row] = await self._run(work, False, signal)
        return rows

    async def count(
        self, query: QueryInput | None = None, *, signal: AbortSignal | None = None
    ) -> int:
        """Counts the rows a query matches, ignoring its paging."""
        statement = compile_count(self._schema, self._dialect, query)
        rows = await self._run(lambda s: s.rows(statement.sql, statement.params), False, signal)
        return int(rows[0][0])

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
        statement = compile_aggregate(self._schema, self._dialect, function, column, query)
        rows = await self._run(lambda s: s.rows(statement.sql, statement.params), False, signal)
        value = rows[0][0]
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
            return int(value)
        result: int | float = value
        return result

    async def clear(self, *, signal: AbortSignal | None = None) -> int:
        """Deletes every row and returns how many there were."""
        return int(await self._run(lambda s: s.run(self._statements.clear), True, signal))
