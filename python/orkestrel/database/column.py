"""The `Column` declaration: one typed, optionally absent, cell of a table row."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from orkestrel.database.constants import COLUMN_TYPES
from orkestrel.database.helpers import (
    canonical_json,
    parse_boolean,
    parse_integer,
    parse_number,
    parse_string,
)
from orkestrel.database.types import ColumnType

_NUL = re.compile(r"(?:^|[^\\])(?:\\\\)*\\u0000")


def _parse_json(value: Any) -> Any:
    try:
        text = canonical_json(value)
    except (TypeError, ValueError, RecursionError):
        return None
    return None if _NUL.search(text) else value


_PARSERS: dict[str, Callable[[Any], Any]] = {
    "string": parse_string,
    "integer": parse_integer,
    "number": parse_number,
    "boolean": parse_boolean,
    "json": _parse_json,
}


class Column:
    """Declares one column of a table: its type and whether a row may leave it absent.

    Types are `string`, `integer` (signed 64-bit), `number` (finite float), `boolean` and `json`
    (any JSON value). Writes coerce the way the contract parsers do: numbers and numeric strings
    convert into each other, and `1` / `0` / `'true'` / `'false'` read as booleans.
    """

    __slots__ = ("_parse", "optional", "type")

    type: ColumnType
    optional: bool

    def __init__(self, type: ColumnType, *, optional: bool = False) -> None:
        if type not in COLUMN_TYPES:
            raise ValueError(f"column type must be one of {', '.join(COLUMN_TYPES)}, not {type!r}")
        self.type = type
        self.optional = bool(optional)
        self._parse = _PARSERS[type]

    def parse(self, value: Any) -> Any:
        """Coerces a present cell to the column's type, returning `None` when it does not fit."""
        return self._parse(value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Column):
            return NotImplemented
        return self.type == other.type and self.optional == other.optional

    def __hash__(self) -> int:
        return hash((self.type, self.optional))

    def __repr__(self) -> str:
        extra = ", optional=True" if self.optional else ""
        return f"Column({self.type!r}{extra})"
