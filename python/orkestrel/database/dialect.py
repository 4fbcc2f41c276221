"""What differs between SQLite and PostgreSQL SQL: placeholders, quoting, types, and the
handful of operators each engine spells its own way.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from orkestrel.database.helpers import canonical_json
from orkestrel.database.types import ColumnType

DialectName = Literal["sqlite", "postgres"]

_SQLITE_TYPES: dict[str, str] = {
    "string": "TEXT",
    "integer": "INTEGER",
    "number": "REAL",
    "boolean": "INTEGER",
    "json": "TEXT",
}
_POSTGRES_TYPES: dict[str, str] = {
    "string": 'text COLLATE "C"',
    "integer": "bigint",
    "number": "double precision",
    "boolean": "boolean",
    "json": "jsonb",
}
_POSTGRES_INTROSPECTED: dict[str, str] = {
    "string": "text",
    "integer": "bigint",
    "number": "double precision",
    "boolean": "boolean",
    "json": "jsonb",
}


def _glob_to_like(pattern: str) -> str:
    out = []
    for char in pattern:
        if char in "\\%_":
            out.append("\\" + char)
        elif char == "*":
            out.append("%")
        elif char == "?":
            out.append("_")
        else:
            out.append(char)
    return "".join(out)


def _number(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    return value


def _sqlite_boolean(value: Any) -> Any:
    return None if value is None else value == 1


def _sqlite_json(value: Any) -> Any:
    return None if value is None else json.loads(value)


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True, slots=True)
class Dialect:
    """Spells SQL for one engine; `namespace` is the PostgreSQL schema tables live in."""

    name: DialectName
    namespace: str | None = None
    strict: bool = False

    @property
    def mark(self) -> str:
        """The engine's parameter placeholder."""
        return "?" if self.name == "sqlite" else "%s"

    def quote(self, identifier: str) -> str:
        """Quotes an identifier; quotes inside it are doubled, and for psycopg so is `%`."""
        quoted = '"' + identifier.replace('"', '""') + '"'
        return quoted.replace("%", "%%") if self.name == "postgres" else quoted

    def table(self, name: str) -> str:
        """Quotes a table name, qualified by the namespace when there is one."""
        if self.namespace is None:
            return self.quote(name)
        return f"{self.quote(self.namespace)}.{self.quote(name)}"

    def index(self, table: str, columns: tuple[str, ...]) -> str:
        """Names an index after a digest of its table and columns, so any names stay short."""
        digest = hashlib.sha256("\0".join((table, *columns)).encode("utf-8")).hexdigest()
        return self.quote(f"ork_{digest[:24]}")

    def column_type(self, type: ColumnType) -> str:
        """The DDL type a column of this type is created with."""
        return (_SQLITE_TYPES if self.name == "sqlite" else _POSTGRES_TYPES)[type]

    def introspected_type(self, type: ColumnType) -> str:
        """The type name the engine reports back for a column created with `column_type`."""
        return (_SQLITE_TYPES if self.name == "sqlite" else _POSTGRES_INTROSPECTED)[type]

    def param(self, type: ColumnType) -> str:
        """The placeholder for a value bound into a column of this type."""
        if self.name == "postgres" and type == "json":
            return "%s::jsonb"
        return self.mark

    def encoder(self, type: ColumnType) -> Callable[[Any], Any]:
        """Converts a parsed cell into the value bound for the engine."""
        if type == "json":
            return lambda value: None if value is None else canonical_json(value)
        if type == "boolean" and self.name == "sqlite":
            return lambda value: None if value is None else int(value)
        return _identity

    def decoder(self, type: ColumnType) -> Callable[[Any], Any]:
        """Converts a value the engine returns back into a cell."""
        return self.decoding(type)[1]

    def decoding(self, type: ColumnType) -> tuple[int, Callable[[Any], Any]]:
        """The decoder of `decoder` with the code `_core.decode_rows` runs it by in Rust: 0
        keeps the value, 1 is `number`, 2 is a SQLite boolean, 3 calls the decoder."""
        if type == "number":
            return 1, _number
        if self.name == "sqlite" and type == "boolean":
            return 2, _sqlite_boolean
        if self.name == "sqlite" and type == "json":
            return 3, _sqlite_json
        return 0, _identity

    def like(self, column: str) -> str:
        """A case-insensitive `like` test of the column against one bound pattern."""
        if self.name == "sqlite":
            return f"orkestrel_like(?, {column})"
        return f"({column} COLLATE \"default\") ILIKE %s ESCAPE ''"

    def glob(self, column: str) -> str:
        """A case-sensitive `glob` test of the column against one bound pattern."""
        if self.name == "sqlite":
            return f"orkestrel_glob(?, {column})"
        return f"{column} LIKE %s ESCAPE '\\'"

    def glob_pattern(self, pattern: str) -> str:
        """The bound form of a `glob` pattern."""
        return pattern if self.name == "sqlite" else _glob_to_like(pattern)

    def starts(self, column: str) -> str:
        """A prefix test binding the prefix's length, then the prefix."""
        if self.name == "sqlite":
            return f"substr({column}, 1, ?) = ?"
        return f"left({column}, %s) = %s"

    def ends(self, column: str) -> str:
        """A suffix test binding the suffix's negated length, then the suffix."""
        if self.name == "sqlite":
            return f"substr({column}, ?) = ?"
        return f"right({column}, -(%s)) = %s"

    def total(self, column: str) -> str:
        """A floating-point sum that cannot overflow and is NULL over no cells."""
        if self.name == "sqlite":
            return f"(CASE WHEN COUNT({column}) = 0 THEN NULL ELSE TOTAL({column}) END)"
        return f"SUM({column})::double precision"

    def mean(self, column: str) -> str:
        """A floating-point average that is NULL over no cells."""
        if self.name == "sqlite":
            return f"AVG({column})"
        return f"AVG({column})::double precision"

    def page(self, limit: int | None, offset: int | None) -> tuple[str, list[Any]]:
        """The paging clause and its parameters."""
        if limit is None and not offset:
            return "", []
        mark = self.mark
        return f" LIMIT {mark} OFFSET {mark}", [
            (-1 if self.name == "sqlite" else None) if limit is None else limit,
            offset or 0,
        ]


def sqlite_dialect(*, strict: bool) -> Dialect:
    """Builds the SQLite dialect; `strict` creates STRICT tables (SQLite 3.37 and later)."""
    return Dialect("sqlite", None, strict)


def postgres_dialect(namespace: str) -> Dialect:
    """Builds the PostgreSQL dialect for tables in the given schema."""
    return Dialect("postgres", namespace)
