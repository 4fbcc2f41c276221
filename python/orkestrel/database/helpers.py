"""Pure helpers of the database layer: value coercion, canonical JSON and name checks."""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

from orkestrel import _core
from orkestrel.contract.helpers import number_to_string
from orkestrel.database.constants import (
    MAX_IDENTIFIER_BYTES,
    MAX_INTEGER,
    MIN_INTEGER,
    RESERVED_PREFIXES,
    RESERVED_SCHEMAS,
)

_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})


def parse_string(value: Any) -> str | None:
    """Reads a string cell: a string as is, a finite number as its decimal text, else `None`.

    A string holding a NUL character is refused, since PostgreSQL cannot store one.
    """
    if type(value) is str:
        return None if "\x00" in value else value
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return number_to_string(value)
    if isinstance(value, str):
        return parse_string(str(value))
    return None


def _bounded(number: int) -> int | float | None:
    if MIN_INTEGER <= number <= MAX_INTEGER:
        return number
    try:
        return float(number)
    except OverflowError:
        return None


_DECIMAL_INTEGER = re.compile(r"\s*[+-]?[0-9]{1,19}\s*", re.ASCII)


def parse_number(value: Any) -> int | float | None:
    """Reads a number cell: a finite number as is, or a numeric string's value, else `None`.

    Booleans are not numbers. Which strings are numbers is the contract's rule, one rule for the
    whole package (`orkestrel.contract`, coercion): ECMAScript `Number()` over the trimmed text,
    so `"0x10"` is 16 while `"1_000"`, full-width or Arabic-Indic digits, a blank string and
    `"Infinity"` are refused. A plain decimal integer keeps its exact value rather than the
    nearest double, so `"9007199254740993"` fits an `integer` column exactly.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return _bounded(int(value))
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        number = _core.coerce_number(value)
        if number is None:
            return None
        if _DECIMAL_INTEGER.fullmatch(value):
            return _bounded(int(value))
        return number
    return None


def parse_integer(value: Any) -> int | None:
    """Reads an integer cell: a whole number (or numeric string) within signed 64 bits, else
    `None`.
    """
    number = parse_number(value)
    if number is None:
        return None
    if isinstance(number, float):
        if not number.is_integer():
            return None
        number = int(number)
    return number if MIN_INTEGER <= number <= MAX_INTEGER else None


def parse_boolean(value: Any) -> bool | None:
    """Reads a boolean cell: a bool, `1` / `0`, or `'true'` / `'false'` / `'1'` / `'0'`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    if isinstance(value, str):
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
    return None


def canonical_json(value: Any) -> str:
    """Serializes a JSON value with sorted keys and no spaces, so equal values give equal text.

    Raises `ValueError` (or `TypeError`, or `RecursionError`) for anything that is not JSON.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def identifier_fault(name: Any) -> str | None:
    """Explains why a value cannot name a table or column, or returns `None` when it can.

    A name is a string of 1 to 63 UTF-8 bytes with no control characters; any other character,
    quotes and semicolons included, is allowed because every name is quoted in SQL.
    """
    if not isinstance(name, str):
        return f"a name must be a string, not {type(name).__name__}"
    if not name:
        return "a name must not be empty"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "a name must be valid Unicode text"
    if size > MAX_IDENTIFIER_BYTES:
        return f"a name must be at most {MAX_IDENTIFIER_BYTES} bytes long"
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in name):
        return "a name must not contain control characters"
    return None


def is_reserved(name: str) -> bool:
    """Determines whether a table name uses a prefix the engines or this layer keep for
    themselves.
    """
    folded = name.lower()
    return any(folded.startswith(prefix) for prefix in RESERVED_PREFIXES)


def is_reserved_schema(name: str) -> bool:
    """Determines whether a name is one of PostgreSQL's own schemas (`public`,
    `information_schema`, any `pg_` name), compared case-insensitively."""
    folded = name.lower()
    return folded in RESERVED_SCHEMAS or folded.startswith("pg_")


_FILE_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def file_name(id: str) -> str:
    """Encodes a database id as a safe file stem: letters, digits, `_` and `-` are kept, every
    other byte becomes `%XX`, and a long result is shortened with a digest, so no id can climb
    out of its directory or collide with another.
    """
    encoded = "".join(
        char if char in _FILE_SAFE else "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        for char in id
    )
    if len(encoded) > 120:
        digest = hashlib.sha256(id.encode("utf-8")).hexdigest()[:32]
        encoded = f"{encoded[:80]}~{digest}"
    return encoded
