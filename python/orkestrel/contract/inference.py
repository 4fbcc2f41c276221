"""Schema inference: JSON Schema from one value, many samples, JSON text or JSON Lines files.

The work happens in the Rust core (`orkestrel._core`); this module gives it its public names
and adds the pieces that are plain Python: the error raised for unreadable JSON text and the
regular expressions behind the `uuid`, `email` and `uri` formats.
"""

from __future__ import annotations

import re
from typing import Any, Final, Literal

from orkestrel import _core
from orkestrel._core import (
    LinesReport,
    SchemaBuilder,
    infer_json,
    infer_json_lines,
    is_valid_iso_instant,
    samples_to_format,
    samples_to_schema,
    string_to_format,
    value_to_schema,
)

INFER_ENUM_LIMIT: Final[int] = _core.INFER_ENUM_LIMIT
"""The most distinct values an inferred `enum` may list; a slot with more gets a plain type."""

FORMAT_MAX_LENGTH: Final[int] = _core.FORMAT_MAX_LENGTH
"""The longest string, in UTF-16 units, that format detection looks at; longer ones get none."""

SchemaFormat = Literal["uuid", "date-time", "date", "time", "email", "uri"]
"""A string format inference can detect, in the order the detector tries them."""

# ECMAScript `\s`: WhiteSpace plus LineTerminator (Python's `\s` differs on a few code points).
_JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"

FORMAT_PATTERNS: Final[dict[str, re.Pattern[str]]] = {
    "uuid": re.compile(
        r"\A[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z",
        re.IGNORECASE | re.ASCII,
    ),
    "email": re.compile(rf"\A[^{_JS_SPACE}@]+@[^{_JS_SPACE}@]+\.[^{_JS_SPACE}@]+\Z"),
    "uri": re.compile(r"\A[a-z][a-z0-9+.-]*://", re.IGNORECASE | re.ASCII),
}
"""The regular expressions behind the `uuid`, `email` and `uri` formats, matching as the
reference's JavaScript patterns do.

They fold case in ASCII only, use the ECMAScript whitespace set for `\\s` and anchor `$` at the
very end of the text.
"""


class JSONInputError(ValueError):
    """Reports JSON or JSON Lines text that could not be read, with its line, column and reason.

    `line` and `column` are 1-based (the column counts bytes), `reason` is a short description,
    `code` a stable keyword for it (`truncated`, `unexpected`, `utf8`, …) and `source` the file
    it came from, when known.
    """

    line: int
    column: int
    reason: str
    code: str
    source: str | None

    def __init__(
        self,
        message: str | None = None,
        *,
        line: int,
        column: int,
        reason: str,
        code: str,
        source: str | None = None,
    ) -> None:
        where = f"{source}: " if source else ""
        super().__init__(message or f"{where}line {line} column {column}: {reason}")
        self.line = line
        self.column = column
        self.reason = reason
        self.code = code
        self.source = source

    def __reduce__(self) -> tuple[Any, ...]:
        fields = {
            "line": self.line,
            "column": self.column,
            "reason": self.reason,
            "code": self.code,
            "source": self.source,
        }
        return (_rebuild, (str(self), fields))


def _rebuild(message: str, fields: dict[str, Any]) -> JSONInputError:
    return JSONInputError(message, **fields)


__all__ = [
    "FORMAT_MAX_LENGTH",
    "FORMAT_PATTERNS",
    "INFER_ENUM_LIMIT",
    "JSONInputError",
    "LinesReport",
    "SchemaBuilder",
    "SchemaFormat",
    "infer_json",
    "infer_json_lines",
    "is_valid_iso_instant",
    "samples_to_format",
    "samples_to_schema",
    "string_to_format",
    "value_to_schema",
]
