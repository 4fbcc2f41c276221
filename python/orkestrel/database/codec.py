"""Converts rows between their Python form and the tuples an engine binds and returns."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from orkestrel import _core
from orkestrel.contract.helpers import preview
from orkestrel.database.dialect import Dialect
from orkestrel.database.errors import DatabaseError
from orkestrel.database.helpers import parse_number
from orkestrel.database.schema import TableSchema
from orkestrel.database.types import Key, KeyGenerator, Row

_Cell = tuple[str, bool, Callable[[Any], Any], Callable[[Any], Any]]


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_CODES = {"string": 0, "integer": 1, "number": 2}


def _fast_code(kind: str, dialect: Dialect) -> int:
    if kind == "boolean":
        return 4 if dialect.name == "sqlite" else 3
    return _CODES.get(kind, 5)


def _default_key() -> Key:
    return str(uuid.uuid4())


class RowCodec:
    """Checks and encodes rows for one table, and decodes the tuples its engine returns.

    A row must be a mapping of declared columns; a missing or `None` cell is absent, which only
    optional columns allow. A row without a key gets one from the key generator (a UUID string
    by default).
    """

    __slots__ = (
        "_cells",
        "_columns",
        "_decoders",
        "_decoding",
        "_fast",
        "_generator",
        "_key",
        "_key_index",
        "_names",
        "_schema",
    )

    def __init__(
        self, schema: TableSchema, dialect: Dialect, generator: KeyGenerator | None
    ) -> None:
        self._schema = schema
        self._names = tuple(c.name for c in schema.columns)
        self._columns = frozenset(self._names)
        self._cells: tuple[_Cell, ...] = tuple(
            (c.name, c.optional, c.column.parse, dialect.encoder(c.type)) for c in schema.columns
        )
        self._decoders = tuple((c.name, dialect.decoder(c.type)) for c in schema.columns)
        self._decoding = [(c.name, *dialect.decoding(c.type)) for c in schema.columns]
        self._key = schema.key
        self._key_index = self._names.index(schema.primary)
        self._generator = generator or _default_key
        self._fast = tuple(
            (c.name, _fast_code(c.type, dialect), c.optional and c.name != schema.primary)
            for c in schema.columns
        )

    def _refuse(self, message: str, **context: Any) -> DatabaseError:
        return DatabaseError("VALIDATION", message, {"table": self._schema.name, **context})

    def _misfit(self, name: str, value: Any) -> DatabaseError:
        kind = self._schema.lookup[name].type
        return self._refuse(f"{preview(value)} does not fit {kind} column {name!r}", column=name)

    def _check_fields(self, row: Any, what: str) -> Mapping[str, Any]:
        if not isinstance(row, Mapping):
            raise self._refuse(f"{what} must be an object, not {type(row).__name__}")
        for name in row:
            if name not in self._columns:
                raise self._refuse(
                    f"table {self._schema.name!r} has no column {preview(name)}",
                    column=preview(name),
                )
        return row

    def encode_rows(self, rows: list[Any]) -> tuple[list[Key], list[Sequence[Any]]]:
        """Checks a batch of rows and returns their keys and bound values, in order.

        Rows whose cells are all of their columns' plain types are encoded in Rust as they are;
        any other row goes through `encode`, which coerces and explains.
        """
        keys, batch, slow = _core.encode_rows(rows, self._fast, self._key_index)
        for index in slow:
            keys[index], batch[index] = self.encode(rows[index])
        return keys, batch

    def encode(self, row: Any) -> tuple[Key, list[Any]]:
        """Checks one row and returns its key and the values to bind, in column order."""
        row = self._check_fields(row, "a row")
        params: list[Any] = []
        key: Any = None
        for name, optional, parse, encode in self._cells:
            value = row.get(name)
            if value is None:
                if name == self._schema.primary:
                    value = self._generator()
                elif optional:
                    params.append(None)
                    continue
                else:
                    raise self._refuse(f"column {name!r} is required", column=name)
            parsed = parse(value)
            if parsed is None:
                raise self._misfit(name, value)
            if name == self._schema.primary:
                key = parsed
            params.append(encode(parsed))
        return key, params

    def changes(self, changes: Any) -> tuple[list[str], list[Any], Any]:
        """Checks an update's changes and returns the changed columns, their bound values, and
        the key the changes name (or `None`).
        """
        changes = self._check_fields(changes, "changes")
        names: list[str] = []
        params: list[Any] = []
        key: Any = None
        for name, optional, parse, encode in self._cells:
            if name not in changes:
                continue
            value = changes[name]
            if value is None:
                if not optional:
                    raise self._refuse(f"column {name!r} is required", column=name)
                parsed = None
            else:
                parsed = parse(value)
                if parsed is None:
                    raise self._misfit(name, value)
            if name == self._schema.primary:
                key = parsed
                continue
            names.append(name)
            params.append(encode(parsed))
        return names, params, key

    def key(self, key: Any) -> Key | None:
        """Coerces a key to the primary column's type; a key that cannot be stored there is
        `None` (it names no row). Anything but a string or finite number is refused.
        """
        if isinstance(key, bool) or not isinstance(key, str | int | float):
            raise self._refuse(f"a key must be a string or a number, not {type(key).__name__}")
        if isinstance(key, float) and parse_number(key) is None:
            raise self._refuse(f"a key must be finite, not {key!r}")
        parsed: Key | None = self._key.column.parse(key)
        if isinstance(parsed, str) and not _encodable(parsed):
            return None
        return parsed

    def decode(self, values: tuple[Any, ...]) -> Row:
        """Builds a row from an engine tuple in column order, leaving NULL cells out."""
        row: Row = {}
        for (name, decode), value in zip(self._decoders, values, strict=True):
            if value is not None:
                row[name] = decode(value)
        return row

    def decode_rows(self, rows: list[tuple[Any, ...]]) -> list[Row]:
        """Builds the rows of a list of engine tuples, as `decode` does for each, in Rust."""
        decoded: list[Row] = _core.decode_rows(rows, self._decoding)
        return decoded

    def decode_key(self, value: Any) -> Key:
        """Decodes one primary key value the engine returns."""
        decoded: Key = self._decoders[self._key_index][1](value)
        return decoded
