"""The constructor-free way to reach the definition stores and the database tool."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import anyio.to_thread

from orkestrel import _core
from orkestrel.contract import Contract, array_shape, create_contract
from orkestrel.database import (
    DatabaseInterface,
    DriverFactory,
    DriverInterface,
    KeyGenerator,
    create_database,
    create_memory_driver,
)
from orkestrel.tool import ProgressPacer, ToolContext
from orkestrel.toolbox.database.constants import (
    DATABASE_TOOL_KEYS,
    DATABASE_TOOL_LIMIT,
    DATABASE_TOOL_NAME,
    DATABASE_TOOL_SIZE,
    DATABASE_TOOL_SUMMARY,
    database_description,
)
from orkestrel.toolbox.database.database_store import (
    DEFINITIONS_COLUMNS,
    DEFINITIONS_TABLE,
    DatabaseDefinitionStore,
)
from orkestrel.toolbox.database.handler import DatabaseToolHandler
from orkestrel.toolbox.database.ids_read import IdsRead
from orkestrel.toolbox.database.memory_store import MemoryDefinitionStore
from orkestrel.toolbox.database.resolver import DatabaseResolver
from orkestrel.toolbox.database.shapes import database_tool_shape, row_shape
from orkestrel.toolbox.database.tool import DatabaseTool
from orkestrel.toolbox.database.types import DefinitionStoreInterface
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import named_text, stored_argument
from orkestrel.toolbox.hints import READS_STATE, WRITES
from orkestrel.toolbox.operation_contract import OperationContract

MAX_SAFE_INTEGER: Final = 2**53 - 1
MIN_SIZE: Final = 256
PLAIN_ROWS: Final = 16
"""Writes of more rows than this skip copying rows that are already plain (see `_plain_rows`)."""
BULKY_ROWS: Final = 2000
"""Rows parse at about a microsecond each: a longer list would hold the event loop for more
than the database layer's inline budget, so it is parsed in a worker thread."""


def create_memory_definition_store() -> DefinitionStoreInterface:
    """Creates the in-memory `DefinitionStoreInterface`: a process-lifetime dict of database
    definitions, the default store the database tool persists its definitions through.
    """
    return MemoryDefinitionStore()


def create_database_definition_store(
    driver: DriverInterface | None = None,
) -> DatabaseDefinitionStore:
    """Creates a `DefinitionStoreInterface` kept in one table of the database layer, the
    driver-pluggable twin of `create_memory_definition_store`, storing each database's
    definition as one JSON cell (in memory unless a driver is given).
    """
    database = create_database(tables={DEFINITIONS_TABLE: DEFINITIONS_COLUMNS}, driver=driver)
    return DatabaseDefinitionStore(database.table(DEFINITIONS_TABLE), database)


def _refuse_option(name: str, value: Any, rule: str) -> ToolboxError:
    return ToolboxError("TOOL", f"database {name} must be {rule}", {name: value})


def _check_count(name: str, value: Any, least: int, most: int, rule: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise _refuse_option(name, value, rule)


def create_database_tool(
    *,
    name: str | None = None,
    description: str | None = None,
    databases: Mapping[str, DatabaseInterface] | None = None,
    store: DefinitionStoreInterface | None = None,
    drivers: Mapping[str, DriverFactory | Callable[[], DriverInterface]] | None = None,
    generator: KeyGenerator | None = None,
    limit: int | None = None,
    size: int | None = None,
    keys: int | None = None,
    timeout_ms: int | None = None,
    readonly: bool = False,
    resolver: DatabaseResolver | None = None,
) -> DatabaseTool:
    """Builds an LLM-callable database tool that creates, queries, and mutates databases
    through one `operation`-discriminated call.

    `parameters` is compiled from `database_tool_shape`, and every call's arguments are parsed
    through the same contract. `records` answers carry at most `limit` rows (default
    `DATABASE_TOOL_LIMIT`) and at most `size` bytes of JSON (default `DATABASE_TOOL_SIZE`); an
    `add` or `set` of many rows answers at most `keys` keys (default `DATABASE_TOOL_KEYS`), and
    past that `{count, keys, truncated: true}`;
    `timeout_ms` (milliseconds) interrupts a slow read or write and rolls it back; `readonly`
    refuses every mutation and opens the databases the tool builds read-only. A caller-built
    `resolver` (instead of `databases`, `store`, `drivers` and `generator`) is where the tool
    keeps the databases it opens; `close()` on the tool (or `async with`) closes them either way.
    """
    if timeout_ms is not None:
        _check_count("timeout_ms", timeout_ms, 0, MAX_SAFE_INTEGER, "a nonnegative safe integer")
    cap = DATABASE_TOOL_LIMIT if limit is None else limit
    _check_count("limit", cap, 0, MAX_SAFE_INTEGER, "a nonnegative safe integer")
    budget = DATABASE_TOOL_SIZE if size is None else size
    _check_count("size", budget, MIN_SIZE, MAX_SAFE_INTEGER, f"an integer of at least {MIN_SIZE}")
    answered = DATABASE_TOOL_KEYS if keys is None else keys
    _check_count("keys", answered, 0, MAX_SAFE_INTEGER, "a nonnegative safe integer")
    label = DATABASE_TOOL_NAME if name is None else name
    contract = OperationContract(database_tool_shape, label=label)
    if resolver is None:
        resolver = DatabaseResolver(
            databases,
            drivers if drivers is not None else {"memory": create_memory_driver},
            generator,
            store,
            readonly=readonly,
        )
    elif any(option is not None for option in (databases, store, drivers, generator)):
        raise ToolboxError(
            "TOOL", "pass either a resolver or databases, store, drivers and generator, not both"
        )
    else:
        store = resolver.store
    handler = DatabaseToolHandler(
        resolver,
        store,
        limit=cap,
        size=budget,
        timeout=timeout_ms,
        readonly=bool(readonly),
        keys=answered,
    )

    plain = create_contract(array_shape(row_shape))

    async def execute(args: Mapping[str, Any], caller: Any = None) -> dict[str, Any]:
        if isinstance(caller, IdsRead):
            ids, total = await resolver.ids(caller.prefix, caller.limit)
            return {"ids": ids, "total": total}
        listens = isinstance(caller, ToolContext) and caller.wants_progress
        report = ProgressPacer(caller).report if listens else None
        rows = _plain_rows(args, plain)
        if rows is not None:
            call = contract.parse({**args, "row": []})
            call["row"] = rows
        elif _is_bulky(args):
            call = await anyio.to_thread.run_sync(contract.parse, args)
        else:
            call = contract.parse(args)
        return await handler.run(call, report)

    return DatabaseTool(
        resolver=resolver,
        name=label,
        description=named_text(database_description(answered), DATABASE_TOOL_NAME, label)
        if description is None
        else description,
        summary=named_text(DATABASE_TOOL_SUMMARY, DATABASE_TOOL_NAME, label),
        parameters=contract.parameters,
        operations=contract.schemas(),
        annotations={**(READS_STATE if readonly else WRITES), "title": "Database"},
        execute=execute,
    )


def _plain_rows(args: Any, plain: Contract) -> list[Any] | None:
    """The rows of an `add` or `set` call, as given, when copying them would change nothing:
    a plain list of plain dicts that the row shape accepts exactly as they are (no coercion
    applies to JSON values). Parsing them would build an equal list of equal dicts, and the row
    codec reads and checks every cell again anyway; `None` sends the call through the full
    parse, with its fault messages.
    """
    if type(args) is not dict or dict.get(args, "operation") not in ("add", "set"):
        return None
    rows = dict.get(args, "row")
    if type(rows) is not list or not PLAIN_ROWS < len(rows) <= BULKY_ROWS:
        return None
    if not _core.all_exact_dicts(rows) or not plain.is_valid(rows):
        return None
    return rows


def _is_bulky(args: Any) -> bool:
    row = stored_argument(args, "row")
    return isinstance(row, list) and len(row) > BULKY_ROWS
