"""The database tool's dispatcher: one parsed call in, one plain result out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio

from orkestrel.abort import AbortSignal
from orkestrel.database import DatabaseError, DatabaseInterface, Transaction
from orkestrel.timeout import MAX_TIMEOUT_MS, create_timeout
from orkestrel.toolbox.database.constants import (
    DATABASE_TOOL_KEYS,
    DATABASE_TOOL_MUTATIONS,
    DATABASE_TOOL_PROGRESS_ROWS,
)
from orkestrel.toolbox.database.helpers import (
    Report,
    clamp_query,
    fit_records,
    get_within,
    infer_database_code,
    normalize_query,
    over_size,
    report_while,
)
from orkestrel.toolbox.database.resolver import DatabaseResolver
from orkestrel.toolbox.database.types import DatabaseDefinition, DefinitionStoreInterface
from orkestrel.toolbox.errors import ToolboxError

Call = Mapping[str, Any]
_DEFINITION_FIELDS = ("primary", "indexes", "version")
_COUNTED = {"add": "row", "set": "row", "update": "key", "remove": "key"}
"""The writes that report progress, and the argument that lists what they write."""


def _keys(value: Any) -> tuple[bool, list[Any]]:
    return (True, list(value)) if isinstance(value, list) else (False, [value])


class DatabaseToolHandler:
    """Runs parsed database-tool calls against the resolver's databases.

    Mutations are refused up front in readonly mode; every `DatabaseError` comes back as a
    `ToolboxError` coded `DATABASE` with the original code in `context["code"]`.
    """

    __slots__ = (
        "_drivers",
        "_keys",
        "_limit",
        "_locks",
        "_operations",
        "_readonly",
        "_resolver",
        "_size",
        "_step",
        "_store",
        "_timeout",
    )

    def __init__(
        self,
        resolver: DatabaseResolver,
        store: DefinitionStoreInterface | None,
        *,
        limit: int,
        size: int,
        timeout: int | None,
        readonly: bool,
        keys: int = DATABASE_TOOL_KEYS,
        step: int = DATABASE_TOOL_PROGRESS_ROWS,
    ) -> None:
        self._keys = keys
        self._step = step
        self._resolver = resolver
        self._store = store
        self._limit = limit
        self._size = size
        self._timeout = timeout
        self._readonly = readonly
        self._locks: dict[str, tuple[anyio.Lock, int]] = {}
        self._operations: dict[str, Callable[[Call], Awaitable[dict[str, Any]]]] = {
            "create": self._create,
            "tables": self._tables,
            "get": self._get,
            "records": self._records,
            "count": self._count,
            "aggregate": self._aggregate,
            "add": self._add,
            "set": self._set,
            "update": self._update,
            "remove": self._remove,
            "destroy": self._destroy,
        }

    async def run(self, call: Call, report: Report | None = None) -> dict[str, Any]:
        """Dispatches one parsed call and returns its result; a write of many rows reports its
        progress through `report`, when given."""
        operation = call["operation"]
        if self._readonly and operation in DATABASE_TOOL_MUTATIONS:
            raise ToolboxError(
                "TOOL",
                f"operation '{operation}' is disabled in readonly mode",
                {"operation": operation},
            )
        try:
            if report is not None and self._counts(call):
                return await self._counted(call, report)
            return await self._operations[operation](call)
        except DatabaseError as error:
            code = infer_database_code(error)
            context: dict[str, Any] = {"code": code, "operation": operation, "id": call["id"]}
            message = error.message
            if "table" in call:
                context["table"] = call["table"]
                if (error.context or {}).get("stale"):
                    message = f"table '{call['table']}' of database '{call['id']}': {message}"
            raise ToolboxError("DATABASE", message, context) from error

    @asynccontextmanager
    async def _deadline(self) -> AsyncIterator[AbortSignal | None]:
        if self._timeout is None:
            yield None
            return
        timeout = create_timeout(ms=min(self._timeout, MAX_TIMEOUT_MS))
        timeout.start()
        try:
            yield timeout.signal
        finally:
            timeout.clear()

    async def _table(self, call: Call) -> Any:
        database = await self._resolver.resolve(call["id"])
        return database.table(call["table"])

    async def _create(self, call: Call) -> dict[str, Any]:
        id = call["id"]
        name = call.get("driver") or "memory"
        definition: DatabaseDefinition = {"id": id, "driver": name, "tables": call["tables"]}
        for field in _DEFINITION_FIELDS:
            if call.get(field) is not None:
                definition[field] = call[field]  # type: ignore[literal-required]
        async with self._serial(id):
            # A handle left from a definition another process destroyed is closed here.
            if await self._resolver.current(id) is not None:
                raise ToolboxError(
                    "DATABASE",
                    f"database '{id}' already exists",
                    {"code": "CONFLICT", "operation": "create", "id": id},
                )
            database = self._resolver.build(definition)
            # The definition is stored first, so a failing store creates no storage; a failing
            # open then takes the definition back out.
            if self._store is not None:
                await self._store.set(definition)
            self._resolver.set(id, database, definition)
            try:
                await database.open()
            except BaseException:
                with anyio.CancelScope(shield=True):
                    self._resolver.delete(id)
                    try:
                        await database.close()
                    finally:
                        if self._store is not None:
                            await self._store.delete(id)
                raise
        return {"id": id, "tables": list(call["tables"])}

    async def _tables(self, call: Call) -> dict[str, Any]:
        database: DatabaseInterface = await self._resolver.resolve(call["id"])
        tables = []
        for name in database.export():
            table = database.table(name)
            tables.append({"name": name, "primary": table.primary, "columns": table.schema})
        return {"tables": tables}

    async def _get(self, call: Call) -> dict[str, Any]:
        database = await self._resolver.resolve(call["id"])
        name = call["table"]
        table = database.table(name)
        many, keys = _keys(call["key"])
        if len(keys) <= 1:
            # One row answers whatever its size: `records` leaves a row too large for it to
            # `get` (the server's own answer cap still holds).
            rows = await table.get(keys)
            return {"rows": rows} if many else {"row": rows[0]}
        size = self._size
        found = await database.transaction(
            lambda transaction: get_within(transaction.table(name), keys, size), write=False
        )
        if found is None:
            raise over_size("database", "get", size, "ask for fewer keys")
        return {"rows": found}

    async def _records(self, call: Call) -> dict[str, Any]:
        table = await self._table(call)
        clamped = clamp_query(normalize_query(call.get("query")), self._limit)
        if self._timeout is None:  # the common case, without a context manager's frames
            rows = await table.records(clamped["query"])
        else:
            async with self._deadline() as signal:
                rows = await table.records(clamped["query"], signal=signal)
        return dict(fit_records(rows, clamped["limit"], self._size))

    async def _count(self, call: Call) -> dict[str, Any]:
        table = await self._table(call)
        async with self._deadline() as signal:
            return {"count": await table.count(normalize_query(call.get("query")), signal=signal)}

    async def _aggregate(self, call: Call) -> dict[str, Any]:
        table = await self._table(call)
        query = normalize_query(call.get("query"))
        async with self._deadline() as signal:
            value = await table.aggregate(call["function"], call["column"], query, signal=signal)
        return {"value": value}

    def _counts(self, call: Call) -> bool:
        listed = call.get(_COUNTED.get(call["operation"], ""))
        return isinstance(listed, list) and len(listed) > self._step

    async def _counted(self, call: Call, report: Report) -> dict[str, Any]:
        """Runs a write of many rows `step` at a time in one transaction, reporting how many
        are done (the last report comes once it has committed)."""
        operation, name = call["operation"], call["table"]
        items: list[Any] = call[_COUNTED[operation]]
        database = await self._resolver.resolve(call["id"])
        database.table(name)  # an unknown table is refused in the words of every other call
        total, step, done = len(items), self._step, [0]
        noun = "rows" if _COUNTED[operation] == "row" else "keys"

        def work(transaction: Transaction) -> list[Any]:
            view = transaction.table(name)
            results: list[Any] = []
            for start in range(0, total, step):
                chunk = items[start : start + step]
                if operation == "update":
                    results.extend(view.update(chunk, call["changes"]))
                else:
                    results.extend(getattr(view, operation)(chunk))
                done[0] = start + len(chunk)
            return results

        def message(count: int) -> str:
            return f"{operation}: {count} of {total} {noun} of table '{name}' done"

        async with self._deadline() as signal:
            results = await report_while(
                lambda: database.transaction(work, signal=signal), done, total, message, report
            )
        if operation == "update":
            return {"updated": results}
        if operation == "remove":
            return {"removed": results}
        return self._written(True, results)

    def _written(self, many: bool, keys: list[Any]) -> dict[str, Any]:
        if not many:
            return {"key": keys[0]}
        if len(keys) <= self._keys:
            return {"keys": keys}
        return {"count": len(keys), "keys": keys[: self._keys], "truncated": True}

    async def _write(self, call: Call, method: str) -> dict[str, Any]:
        table = await self._table(call)
        many, rows = _keys(call["row"])
        async with self._deadline() as signal:
            keys = await getattr(table, method)(rows, signal=signal)
        return self._written(many, keys)

    async def _add(self, call: Call) -> dict[str, Any]:
        return await self._write(call, "add")

    async def _set(self, call: Call) -> dict[str, Any]:
        return await self._write(call, "set")

    async def _update(self, call: Call) -> dict[str, Any]:
        table = await self._table(call)
        many, keys = _keys(call["key"])
        async with self._deadline() as signal:
            updated = await table.update(keys, call["changes"], signal=signal)
        return {"updated": updated if many else updated[0]}

    async def _remove(self, call: Call) -> dict[str, Any]:
        table = await self._table(call)
        many, keys = _keys(call["key"])
        async with self._deadline() as signal:
            removed = await table.remove(keys, signal=signal)
        return {"removed": removed if many else removed[0]}

    async def _destroy(self, call: Call) -> dict[str, Any]:
        id = call["id"]
        async with self._serial(id):
            database = await self._resolver.current(id)
            if database is not None:
                await database.destroy()
            self._resolver.delete(id)
            if self._store is not None:
                await self._store.delete(id)
        return {"id": id, "destroyed": database is not None}

    @asynccontextmanager
    async def _serial(self, id: str) -> AsyncIterator[None]:
        """Runs `create` and `destroy` of one id one at a time, so concurrent creates of an id
        give one database and `CONFLICT` for the rest."""
        lock, users = self._locks.get(id, (None, 0))
        if lock is None:
            lock = anyio.Lock()
        self._locks[id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[id]
            if users <= 1:
                del self._locks[id]
            else:
                self._locks[id] = (lock, users - 1)
