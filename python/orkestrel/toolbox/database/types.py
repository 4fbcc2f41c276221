"""The plain data and interfaces of the database tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, Protocol, TypedDict, runtime_checkable

from orkestrel.database import (
    Connector,
    DatabaseInterface,
    Direction,
    DriverFactory,
    KeyGenerator,
    Operator,
)

ColumnPrimitive = Literal["string", "integer", "number", "boolean"]
"""Represents one column's declared primitive: a shorthand, or `integer` for a whole number."""


class ColumnObject(TypedDict):
    """Represents the object form of a column spec: its primitive and whether it may be absent."""

    primitive: ColumnPrimitive
    optional: NotRequired[bool]


ColumnSpec = ColumnPrimitive | ColumnObject
"""Represents one table column's spec: a bare `ColumnPrimitive`, or `{primitive, optional}`
when the column may be absent from a row.
"""


class TableColumns(TypedDict):
    """Represents one table of a `TableSpec`: its flat map of column name to `ColumnSpec`."""

    columns: dict[str, ColumnSpec]


TableSpec = Mapping[str, TableColumns]
"""Represents a database's table layout: one entry per table, each a flat map of column name to
`ColumnSpec`; the small-model-facing form `expand_tables` compiles into a `TableMap`.
"""


class DatabaseDefinition(TypedDict):
    """Represents one database's config-only definition: an `id`, a `driver`, and a
    `TableSpec`, with optional `primary`, `indexes`, and `version` schema configuration.
    """

    id: str
    driver: str
    tables: dict[str, TableColumns]
    primary: NotRequired[dict[str, str]]
    indexes: NotRequired[dict[str, list[list[str]]]]
    version: NotRequired[int | float]


class DatabaseDefinitionRow(TypedDict):
    """Represents one persisted definition row: the id, and the definition as one opaque JSON
    cell, narrowed with `is_database_definition` on read.
    """

    id: str
    definition: Any


class DefinitionStoreInterface(Protocol):
    """Represents the point-access persistence seam for `DatabaseDefinition` configs: every
    primitive is async, and `delete` of an absent id is a no-op.
    """

    async def get(self, id: str) -> DatabaseDefinition | None:
        """Resolves the persisted definition for `id`, or `None` when none is stored."""
        ...

    async def set(self, definition: DatabaseDefinition) -> None:
        """Inserts or replaces a definition under its own `id`, taking no separate id."""
        ...

    async def delete(self, id: str) -> None:
        """Drops the definition for `id`, treating an absent id as a no-op that never raises."""
        ...


@runtime_checkable
class DefinitionListingInterface(Protocol):
    """Represents a definition store that can also list its ids by prefix (both built-in
    stores do), which completions of a database id read; a store without it lists nothing."""

    async def ids(self, prefix: str, limit: int) -> tuple[list[str], int]:
        """The first `limit` stored ids that start with `prefix`, in order, and how many do."""
        ...


class DatabaseCondition(TypedDict):
    """Represents one serialized condition: `values` is always a list, and `connector` (default
    `and`) joins this condition to the next one.
    """

    column: str
    operator: Operator
    values: list[Any]
    connector: NotRequired[Connector]


class DatabaseOrder(TypedDict):
    """Represents one serialized sort term."""

    column: str
    direction: Direction


class DatabaseQueryInput(TypedDict, total=False):
    """Represents the serialized wire query a database-tool call carries; `normalize_query`
    turns it into the database layer's `QueryInput`.
    """

    conditions: list[DatabaseCondition]
    order: list[DatabaseOrder]
    limit: int
    offset: int


class ClampedQuery(TypedDict):
    """Represents the probe query and effective row limit `clamp_query` returns."""

    query: DatabaseQueryInput
    limit: int


class DatabaseToolOptions(TypedDict, total=False):
    """Represents the options for `create_database_tool`: the live handles, definition store,
    driver registry, key generator, row cap, byte cap, answered-key cap, timeout in milliseconds,
    and readonly gate.
    """

    name: str
    description: str
    databases: Mapping[str, DatabaseInterface]
    store: DefinitionStoreInterface
    drivers: Mapping[str, DriverFactory]
    generator: KeyGenerator
    limit: int
    size: int
    keys: int
    timeout_ms: int
    readonly: bool
    resolver: Any


class RecordsResult(TypedDict):
    """Represents a `records` answer: the rows, how many, whether more matched, and the cap."""

    rows: list[dict[str, Any]]
    count: int
    truncated: bool
    limit: int


DatabaseOperation = Literal[
    "create",
    "tables",
    "get",
    "records",
    "count",
    "aggregate",
    "add",
    "set",
    "update",
    "remove",
    "destroy",
]
"""Represents the operation a database-tool call names."""
