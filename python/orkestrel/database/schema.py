"""Table declarations checked and frozen into `TableSchema`s, the form drivers and the SQL
compiler read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orkestrel.contract.helpers import preview
from orkestrel.database.column import Column
from orkestrel.database.constants import COLUMN_TYPES, DEFAULT_PRIMARY
from orkestrel.database.errors import DatabaseError
from orkestrel.database.helpers import identifier_fault, is_reserved
from orkestrel.database.types import ColumnType, IndexMap, PrimaryMap, TableExport, TableMap

_KEY_TYPES = ("string", "integer", "number")
_JSON_TYPES: dict[str, Any] = {
    "string": {"type": "string"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "json": {},
}


@dataclass(frozen=True, slots=True)
class ColumnSchema:
    """Describes one declared column: its name, type, and whether it may be absent."""

    name: str
    column: Column

    @property
    def type(self) -> ColumnType:
        """The column's type."""
        return self.column.type

    @property
    def optional(self) -> bool:
        """Whether a row may leave the column absent."""
        return self.column.optional


@dataclass(frozen=True, slots=True)
class TableSchema:
    """Describes one declared table: name, primary column, columns in order, and indexes."""

    name: str
    primary: str
    columns: tuple[ColumnSchema, ...]
    indexes: tuple[tuple[str, ...], ...]
    lookup: dict[str, ColumnSchema] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lookup", {column.name: column for column in self.columns})

    @property
    def key(self) -> ColumnSchema:
        """The primary column."""
        return self.lookup[self.primary]

    def export(self) -> TableExport:
        """Returns the table's declaration as plain data."""
        return {
            "primary": self.primary,
            "columns": {c.name: {"type": c.type, "optional": c.optional} for c in self.columns},
            "indexes": [list(index) for index in self.indexes],
        }

    def row_schema(self) -> dict[str, Any]:
        """Returns the JSON Schema of one row of the table."""
        return {
            "type": "object",
            "properties": {c.name: dict(_JSON_TYPES[c.type]) for c in self.columns},
            "required": [c.name for c in self.columns if not c.optional],
            "additionalProperties": False,
        }


def _refuse(message: str, **context: Any) -> DatabaseError:
    return DatabaseError("VALIDATION", message, context or None)


def _check_name(name: Any, what: str) -> str:
    fault = identifier_fault(name)
    if fault is not None:
        raise _refuse(f"invalid {what} name {preview(name)}: {fault}", name=preview(name))
    return str(name)


def _read_column(table: str, name: str, declared: Any) -> Column:
    if isinstance(declared, Column):
        return declared
    if isinstance(declared, str) and declared in COLUMN_TYPES:
        return Column(declared)
    raise _refuse(
        f"column {name!r} of table {table!r} must be a Column or one of {', '.join(COLUMN_TYPES)}",
        table=table,
        column=name,
    )


def _unique_folded(names: list[str], what: str) -> None:
    seen: dict[str, str] = {}
    for name in names:
        folded = name.lower()
        if folded in seen:
            raise _refuse(f"{what} names {seen[folded]!r} and {name!r} differ only in case")
        seen[folded] = name


def _build_table(
    name: str, columns: Mapping[str, Any], primary: str, indexes: list[list[str]]
) -> TableSchema:
    if not isinstance(columns, Mapping):
        raise _refuse(f"table {name!r} must map column names to columns", table=name)
    built = [
        ColumnSchema(_check_name(column, "column"), _read_column(name, column, declared))
        for column, declared in columns.items()
    ]
    _unique_folded([c.name for c in built], f"table {name!r} has column")
    if primary not in {c.name for c in built}:
        built.insert(0, ColumnSchema(primary, Column("string")))
        _unique_folded([c.name for c in built], f"table {name!r} has column")
    key = next(c for c in built if c.name == primary)
    if key.type not in _KEY_TYPES or key.optional:
        raise _refuse(
            f"primary column {primary!r} of table {name!r} must be a required string, integer "
            "or number column",
            table=name,
            column=primary,
        )
    names = {c.name for c in built}
    unique: list[tuple[str, ...]] = []
    for index in indexes:
        if (
            isinstance(index, str)
            or not index
            or any(not isinstance(c, str) or c not in names for c in index)
        ):
            raise _refuse(
                f"index {preview(index)} of table {name!r} must list one or more declared columns",
                table=name,
            )
        if len(set(index)) != len(index):
            raise _refuse(f"index {preview(index)} of table {name!r} repeats a column", table=name)
        if tuple(index) not in unique:
            unique.append(tuple(index))
    return TableSchema(name, primary, tuple(built), tuple(unique))


def build_schemas(
    tables: TableMap, primary: PrimaryMap | None = None, indexes: IndexMap | None = None
) -> dict[str, TableSchema]:
    """Checks table, primary and index declarations and freezes them into `TableSchema`s.

    Every name must be a valid identifier; table names may not use a reserved prefix; names
    that differ only in case are refused because SQLite folds them together. A primary column
    that is not declared is added as a required string column. Raises `DatabaseError` coded
    `VALIDATION` for anything that does not fit.
    """
    if not isinstance(tables, Mapping):
        raise _refuse("tables must map table names to their columns")
    primary = primary or {}
    indexes = indexes or {}
    for label, extra in (("primary", primary), ("indexes", indexes)):
        if not isinstance(extra, Mapping):
            raise _refuse(f"{label} must map table names to their settings")
        unknown = [name for name in extra if name not in tables]
        if unknown:
            raise _refuse(
                f"{label} names undeclared table {preview(unknown[0])}", table=preview(unknown[0])
            )
    schemas: dict[str, TableSchema] = {}
    for name, columns in tables.items():
        _check_name(name, "table")
        if is_reserved(name):
            raise _refuse(f"table name {name!r} uses a reserved prefix", table=name)
        key = primary.get(name, DEFAULT_PRIMARY)
        _check_name(key, "primary column")
        groups = indexes.get(name, [])
        if isinstance(groups, str) or not all(isinstance(g, list | tuple) for g in groups):
            raise _refuse(f"indexes of table {name!r} must be lists of column names", table=name)
        schemas[name] = _build_table(name, columns, key, [list(g) for g in groups])
    _unique_folded(list(schemas), "table")
    return schemas
