"""Brings stored tables in line with their declaration when a database opens: creates what is
missing, checks what exists, and keeps the version stamp.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from orkestrel.database.column import Column
from orkestrel.database.constants import METADATA_TABLE
from orkestrel.database.dialect import Dialect
from orkestrel.database.errors import DatabaseError
from orkestrel.database.helpers import canonical_json
from orkestrel.database.schema import ColumnSchema, TableSchema
from orkestrel.database.statements import table_statements
from orkestrel.database.types import SessionInterface


class StoredColumn(NamedTuple):
    """One column as the engine reports it."""

    name: str
    type: str
    nullable: bool


Introspect = Callable[[SessionInterface, str], "list[StoredColumn] | None"]

METADATA = TableSchema(
    METADATA_TABLE,
    "name",
    (
        ColumnSchema("name", Column("string")),
        ColumnSchema("version", Column("number")),
        ColumnSchema("schema", Column("string")),
    ),
    (),
)
"""Describes the table that keeps each database's version and declared schema."""


def _refuse(message: str, **context: Any) -> DatabaseError:
    return DatabaseError("MIGRATION", message, context or None)


def describe(schemas: Mapping[str, TableSchema]) -> dict[str, Any]:
    """Returns the declared schema as plain data whose canonical JSON ignores index order."""
    described: dict[str, Any] = {}
    for name, schema in schemas.items():
        exported = schema.export()
        exported["indexes"] = sorted(exported["indexes"])
        described[name] = exported
    return described


def _check_stored(dialect: Dialect, schema: TableSchema, stored: list[StoredColumn]) -> None:
    expected = {
        c.name: (dialect.introspected_type(c.type).lower(), c.optional) for c in schema.columns
    }
    actual = {c.name: (c.type.lower(), c.nullable) for c in stored}
    if expected != actual:
        raise _refuse(
            f"table {schema.name!r} in storage does not match its declaration",
            table=schema.name,
            declared=sorted(expected),
            stored=sorted(actual),
        )


def _upgrade(
    session: SessionInterface,
    dialect: Dialect,
    schemas: Mapping[str, TableSchema],
    previous: dict[str, Any],
) -> None:
    for name, old in previous.items():
        schema = schemas.get(name)
        if schema is None:
            raise _refuse(
                f"the new version drops table {name!r}; drop it by hand first", table=name
            )
        declared = schema.export()["columns"]
        for column, spec in old["columns"].items():
            if declared.get(column) != spec:
                raise _refuse(
                    f"the new version changes or drops column {column!r} of table {name!r}",
                    table=name,
                    column=column,
                )
        if schema.primary != old["primary"]:
            raise _refuse(f"the new version changes the primary column of {name!r}", table=name)
        for column in schema.columns:
            if column.name in old["columns"]:
                continue
            if not column.optional:
                raise _refuse(
                    f"column {column.name!r} added to table {name!r} must be optional",
                    table=name,
                    column=column.name,
                )
            session.run(
                f"ALTER TABLE {dialect.table(name)} ADD COLUMN {dialect.quote(column.name)} "
                f"{dialect.column_type(column.type)}"
            )
        for index in old["indexes"]:
            if tuple(index) not in schema.indexes:
                session.run(f"DROP INDEX IF EXISTS {_index_name(dialect, name, tuple(index))}")


def _index_name(dialect: Dialect, table: str, index: tuple[str, ...]) -> str:
    name = dialect.index(table, index)
    return name if dialect.namespace is None else f"{dialect.quote(dialect.namespace)}.{name}"


def prepare_schemas(
    session: SessionInterface,
    dialect: Dialect,
    schemas: Mapping[str, TableSchema],
    *,
    name: str,
    version: int | float | None,
    readonly: bool,
    introspect: Introspect,
) -> None:
    """Creates missing tables and indexes, refuses tables whose stored columns differ from the
    declaration, and (with a `version`) stamps a fresh store, accepts the same version and
    schema, applies an additive upgrade from an older version, and refuses a newer one.

    Raises `DatabaseError` coded `MIGRATION` when storage and declaration cannot be reconciled.
    """
    described = describe(schemas)
    stamp: tuple[float, dict[str, Any]] | None = None
    if version is not None:
        stamp = _read_stamp(session, dialect, name, readonly, introspect)
        if stamp is None and readonly:
            raise _refuse(f"database {name!r} has no version stamp and is opened read-only")
        if stamp is not None:
            stored_version, stored_schema = stamp
            if stored_version > version:
                raise _refuse(
                    f"database {name!r} is at version {stored_version:g}, newer than {version:g}",
                    stored=stored_version,
                    version=version,
                )
            if stored_version == version and canonical_json(stored_schema) != canonical_json(
                described
            ):
                raise _refuse(
                    f"database {name!r} at version {version:g} has a different schema; "
                    "raise the version to change it",
                    version=version,
                )
            if stored_version < version and not readonly:
                _upgrade(session, dialect, schemas, stored_schema)
    for schema in schemas.values():
        statements = table_statements(schema, dialect)
        stored = introspect(session, schema.name)
        if stored is None:
            if readonly:
                raise _refuse(f"table {schema.name!r} does not exist", table=schema.name)
            session.run(statements.create)
        else:
            _check_stored(dialect, schema, stored)
        if not readonly:
            for index in statements.indexes:
                session.run(index)
    if version is not None and not readonly and (stamp is None or stamp[0] != version):
        meta = table_statements(METADATA, dialect)
        session.run(meta.upsert, [name, version, canonical_json(described)])


def _read_stamp(
    session: SessionInterface,
    dialect: Dialect,
    name: str,
    readonly: bool,
    introspect: Introspect,
) -> tuple[float, dict[str, Any]] | None:
    meta = table_statements(METADATA, dialect)
    if not readonly:
        session.run(meta.create)
    elif introspect(session, METADATA_TABLE) is None:
        return None
    rows = session.rows(meta.lookup(1, dialect.mark), [name])
    if not rows:
        return None
    _, version, schema = rows[0]
    return float(version), json.loads(schema)


def drop_schemas(
    session: SessionInterface,
    dialect: Dialect,
    schemas: Mapping[str, TableSchema],
    *,
    name: str,
    introspect: Introspect,
) -> None:
    """Drops the declared tables (their indexes go with them) and the database's version stamp,
    and the metadata table too once it stamps no other database; undeclared tables stay."""
    for schema in schemas.values():
        session.run(f"DROP TABLE IF EXISTS {dialect.table(schema.name)}")
    if introspect(session, METADATA_TABLE) is None:
        return
    meta = dialect.table(METADATA_TABLE)
    session.run(f"DELETE FROM {meta} WHERE {dialect.quote('name')} = {dialect.mark}", [name])
    if not session.rows(f"SELECT 1 FROM {meta} LIMIT 1"):
        session.run(f"DROP TABLE {meta}")
