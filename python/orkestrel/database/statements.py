"""The fixed statements of one table: DDL, keyed reads, and writes, built once per table."""

from __future__ import annotations

from dataclasses import dataclass

from orkestrel.database.dialect import Dialect
from orkestrel.database.schema import TableSchema


def _definition(schema: TableSchema, dialect: Dialect) -> str:
    parts = []
    for column in schema.columns:
        quoted = dialect.quote(column.name)
        part = f"{quoted} {dialect.column_type(column.type)}"
        if not column.optional:
            part += " NOT NULL"
        if column.name == schema.primary:
            part += " PRIMARY KEY"
        if column.type == "boolean" and dialect.name == "sqlite":
            part += f" CHECK ({quoted} IN (0, 1))"
        parts.append(part)
    strict = " STRICT" if dialect.strict else ""
    return f"CREATE TABLE IF NOT EXISTS {dialect.table(schema.name)} ({', '.join(parts)}){strict}"


@dataclass(frozen=True, slots=True)
class TableStatements:
    """Holds the SQL a table runs for everything but queries, with placeholders in column
    order.
    """

    create: str
    indexes: tuple[str, ...]
    insert: str
    upsert: str
    select: str
    exists: str
    delete: str
    keys: str
    clear: str

    def update(self, schema: TableSchema, dialect: Dialect, columns: list[str]) -> str:
        """An UPDATE of the given columns of one row, binding their values then the key."""
        sets = ", ".join(
            f"{dialect.quote(name)} = {dialect.param(schema.lookup[name].type)}" for name in columns
        )
        key = dialect.quote(schema.primary)
        return f"UPDATE {dialect.table(schema.name)} SET {sets} WHERE {key} = {dialect.mark}"

    def lookup(self, count: int, mark: str) -> str:
        """A SELECT of every column for a batch of `count` keys."""
        return f"{self.select} IN ({', '.join([mark] * count)})"


def table_statements(schema: TableSchema, dialect: Dialect) -> TableStatements:
    """Builds the fixed statements of one table."""
    table = dialect.table(schema.name)
    names = [dialect.quote(c.name) for c in schema.columns]
    marks = ", ".join(dialect.param(c.type) for c in schema.columns)
    key = dialect.quote(schema.primary)
    others = [name for name in names if name != key]
    insert = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})"
    if others:
        update = ", ".join(f"{name} = excluded.{name}" for name in others)
        upsert = f"{insert} ON CONFLICT ({key}) DO UPDATE SET {update}"
    else:
        upsert = f"{insert} ON CONFLICT ({key}) DO NOTHING"
    indexes = tuple(
        f"CREATE INDEX IF NOT EXISTS {dialect.index(schema.name, index)} ON {table} "
        f"({', '.join(dialect.quote(c) for c in index)})"
        for index in schema.indexes
    )
    return TableStatements(
        create=_definition(schema, dialect),
        indexes=indexes,
        insert=insert,
        upsert=upsert,
        select=f"SELECT {', '.join(names)} FROM {table} WHERE {key}",
        exists=f"SELECT 1 FROM {table} WHERE {key} = {dialect.mark}",
        delete=f"DELETE FROM {table} WHERE {key} = {dialect.mark}",
        keys=f"SELECT {key} FROM {table} ORDER BY {key} ASC",
        clear=f"DELETE FROM {table}",
    )
