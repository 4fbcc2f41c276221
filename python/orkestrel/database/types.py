"""The plain data and the interfaces of the database layer."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NotRequired,
    Protocol,
    Required,
    Self,
    TypedDict,
    TypeVar,
    overload,
)

if TYPE_CHECKING:
    from orkestrel.abort import AbortSignal
    from orkestrel.database.column import Column
    from orkestrel.database.dialect import Dialect
    from orkestrel.database.schema import TableSchema
    from orkestrel.database.transaction import Transaction

ColumnType = Literal["string", "integer", "number", "boolean", "json"]
"""Represents the type a column declares."""

Key = str | int | float
"""Represents a primary key value: a string or a finite number."""

Keys = list[Key] | tuple[Key, ...]
"""Represents a batch of keys: a list (or tuple) answered by a list in the same order."""

Row = dict[str, Any]
"""Represents one row: column name to cell value; an absent optional cell is left out."""

Rows = list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...]
"""Represents a batch of rows to write: a list (or tuple) answered by a list of keys."""

Operator = Literal[
    "equals",
    "not",
    "above",
    "below",
    "from",
    "to",
    "between",
    "any",
    "none",
    "like",
    "glob",
    "starts",
    "ends",
    "absent",
    "present",
]
"""Represents one of the fifteen condition operators."""

Connector = Literal["and", "or"]
"""Represents how a condition joins the condition after it."""

Direction = Literal["ascending", "descending"]
"""Represents the direction of one sort term."""

AggregateFunction = Literal["count", "sum", "average", "minimum", "maximum"]
"""Represents an aggregate `Table.aggregate` computes."""

DatabaseStatus = Literal["idle", "open", "closed"]
"""Represents a database's lifecycle: not yet connected, connected, or closed for good."""


class Condition(TypedDict):
    """Describes one condition: `values` is always a list, even for a one-value operator, and
    `connector` (default `and`) joins this condition to the next one.
    """

    column: str
    operator: Operator
    values: list[Any]
    connector: NotRequired[Connector]


class Order(TypedDict):
    """Describes one sort term: a column and the direction to sort it in."""

    column: str
    direction: Direction


class QueryInput(TypedDict, total=False):
    """Describes a query: conditions folded left to right, sort terms, and paging."""

    conditions: list[Condition]
    order: list[Order]
    limit: int
    offset: int


TableMap = Mapping[str, Mapping[str, "Column | ColumnType"]]
"""Represents the declared tables: table name to column name to `Column` (or a bare type)."""

PrimaryMap = Mapping[str, str]
"""Represents each table's primary column, where it is not `id`."""

IndexMap = Mapping[str, Sequence[Sequence[str]]]
"""Represents each table's secondary indexes, each a list of one or more column names."""

KeyGenerator = Callable[[], Key]
"""Represents a function that mints a primary key for a row written without one."""


class ColumnExport(TypedDict):
    """Describes one exported column."""

    type: ColumnType
    optional: bool


class TableExport(TypedDict):
    """Describes one exported table: its primary column, its columns and its indexes."""

    primary: str
    columns: dict[str, ColumnExport]
    indexes: list[list[str]]


T = TypeVar("T")


class SessionInterface(Protocol):
    """Represents one transaction on a driver's connection, used from a worker thread."""

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Runs a statement and returns every row it yields."""
        ...

    def run(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Runs a statement and returns how many rows it changed."""
        ...

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        """Runs one statement once per parameter list."""
        ...


class DriverInterface(Protocol):
    """Represents an engine adapter: it owns one connection, runs each unit of work as one
    transaction in a worker thread, and interrupts the running statement when asked to stop.
    """

    @property
    def dialect(self) -> Dialect: ...
    @property
    def closed(self) -> bool: ...
    @property
    def durable(self) -> bool: ...
    async def open(
        self,
        schemas: Mapping[str, TableSchema],
        *,
        name: str,
        version: int | float | None,
        readonly: bool,
    ) -> None: ...
    async def run(
        self,
        work: Callable[[SessionInterface], T],
        *,
        write: bool,
        signal: AbortSignal | None = None,
    ) -> T: ...
    async def destroy(self, schemas: Mapping[str, TableSchema], *, name: str) -> None: ...
    async def close(self) -> None: ...


DriverFactory = Callable[[str], DriverInterface]
"""Represents a function that builds a fresh driver for the database it is given the id of."""


class TableInterface(Protocol):
    """Represents one table: keyed reads and writes, each taking one key or row or a list of
    them, plus queries, counts and aggregates.
    """

    @property
    def name(self) -> str: ...
    @property
    def primary(self) -> str: ...
    @property
    def schema(self) -> dict[str, Any]: ...
    @overload
    async def get(self, key: Key, *, signal: AbortSignal | None = None) -> Row | None: ...
    @overload
    async def get(self, key: Keys, *, signal: AbortSignal | None = None) -> list[Row | None]: ...
    @overload
    async def has(self, key: Key, *, signal: AbortSignal | None = None) -> bool: ...
    @overload
    async def has(self, key: Keys, *, signal: AbortSignal | None = None) -> list[bool]: ...
    async def keys(self, *, signal: AbortSignal | None = None) -> list[Key]: ...
    @overload
    async def add(self, row: Mapping[str, Any], *, signal: AbortSignal | None = None) -> Key: ...
    @overload
    async def add(
        self,
        row: Rows,
        *,
        signal: AbortSignal | None = None,
    ) -> list[Key]: ...
    @overload
    async def set(self, row: Mapping[str, Any], *, signal: AbortSignal | None = None) -> Key: ...
    @overload
    async def set(
        self,
        row: Rows,
        *,
        signal: AbortSignal | None = None,
    ) -> list[Key]: ...
    @overload
    async def update(
        self, key: Key, changes: Mapping[str, Any], *, signal: AbortSignal | None = None
    ) -> bool: ...
    @overload
    async def update(
        self,
        key: Keys,
        changes: Mapping[str, Any],
        *,
        signal: AbortSignal | None = None,
    ) -> list[bool]: ...
    @overload
    async def remove(self, key: Key, *, signal: AbortSignal | None = None) -> bool: ...
    @overload
    async def remove(self, key: Keys, *, signal: AbortSignal | None = None) -> list[bool]: ...
    async def records(
        self, query: QueryInput | None = None, *, signal: AbortSignal | None = None
    ) -> list[Row]: ...
    async def count(
        self, query: QueryInput | None = None, *, signal: AbortSignal | None = None
    ) -> int: ...
    async def aggregate(
        self,
        function: AggregateFunction,
        column: str,
        query: QueryInput | None = None,
        *,
        signal: AbortSignal | None = None,
    ) -> int | float | None: ...
    async def clear(self, *, signal: AbortSignal | None = None) -> int: ...


class DatabaseInterface(Protocol):
    """Represents a database: declared tables over one driver, opened lazily on first use."""

    @property
    def name(self) -> str: ...
    @property
    def status(self) -> DatabaseStatus: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def version(self) -> int | float | None: ...
    @property
    def driver(self) -> DriverInterface: ...
    def table(self, name: str) -> TableInterface: ...
    def tables(self) -> list[str]: ...
    def export(self) -> dict[str, TableExport]: ...
    async def transaction(
        self,
        work: Callable[[Transaction], T],
        *,
        write: bool = True,
        signal: AbortSignal | None = None,
    ) -> T: ...
    async def open(self) -> None: ...
    async def destroy(self) -> None: ...
    async def close(self) -> None: ...
    async def __aenter__(self) -> Self: ...
    async def __aexit__(self, *exc: object) -> None: ...


class DatabaseOptions(TypedDict, total=False):
    """What `create_database` takes: the arguments of `Database`, whose defaults apply."""

    tables: Required[TableMap]
    driver: DriverInterface | None
    primary: PrimaryMap | None
    indexes: IndexMap | None
    name: str | None
    generator: KeyGenerator | None
    version: int | float | None
    readonly: bool
