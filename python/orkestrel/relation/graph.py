"""The checked picture of a database's relations that models load through: each table's
primary and column types, and each model's resolved relations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from orkestrel.contract.helpers import preview
from orkestrel.database import Column, ColumnType, DatabaseInterface
from orkestrel.relation.errors import RelationError
from orkestrel.relation.helpers import resolve_relation_map
from orkestrel.relation.types import ResolvedRelation

KEY_TYPES: Final = ("string", "integer", "number")
"""The column types a key or a foreign key may have: a key is a string or a number."""


@dataclass(frozen=True, slots=True)
class TableShape:
    """One declared table as the loader reads it: its primary column and its column types."""

    name: str
    primary: str
    types: Mapping[str, ColumnType]


@dataclass(frozen=True, slots=True)
class RelationGraph:
    """Every declared table and the resolved relations of the tables given a map, in order."""

    tables: Mapping[str, TableShape]
    relations: Mapping[str, Mapping[str, ResolvedRelation]]

    def relations_of(self, table: str) -> Mapping[str, ResolvedRelation]:
        """The resolved relations of a table; a table without a map has none."""
        return self.relations.get(table, {})


def _refuse(message: str, **context: Any) -> RelationError:
    return RelationError("INVALID", message, context)


class _Checker:
    __slots__ = ("owner", "relation", "tables")

    def __init__(self, tables: Mapping[str, TableShape], owner: str, relation: str) -> None:
        self.tables = tables
        self.owner = owner
        self.relation = relation

    def refuse(self, problem: str, **context: Any) -> RelationError:
        """A refusal of this relation: `problem` follows its name and owner in the message,
        and the context names them first."""
        return _refuse(
            f"relation {self.relation!r} of {self.owner!r}{problem}",
            model=self.owner,
            relation=self.relation,
            **context,
        )

    def table(self, name: str) -> TableShape:
        shape = self.tables.get(name)
        if shape is None:
            raise self.refuse(f" names undeclared table {name!r}", table=name)
        return shape

    def column(self, table: TableShape, column: str | None, key: bool = True) -> ColumnType:
        kind = table.types.get(column) if column is not None else None
        if kind is None:
            raise self.refuse(
                f": table {table.name!r} has no column {preview(column)}",
                table=table.name,
                column=column,
            )
        if key and kind not in KEY_TYPES:
            raise self.refuse(
                f": column {column!r} of {table.name!r} is {kind}, and a key column must be a "
                "string, integer or number",
                table=table.name,
                column=column,
            )
        return kind

    def check(self, owner: TableShape, relation: ResolvedRelation) -> None:
        related = self.table(relation.model)
        kind = relation.relationship
        if kind == "belongs":
            self.column(owner, relation.column)
        elif kind == "through":
            junction = self.table(relation.through or "")
            self.column(junction, relation.source)
            self.column(junction, relation.target)
            if relation.source == relation.target:
                raise self.refuse(
                    ": source and target must be different columns", table=junction.name
                )
        else:
            self.column(related, relation.key)
        if kind == "morph":
            tag = self.column(related, relation.tag, key=False)
            if Column(tag).parse(relation.label) is None:
                raise self.refuse(
                    f": label {preview(relation.label)} does not fit {tag} column {relation.tag!r}",
                    column=relation.tag,
                )


def build_graph(database: DatabaseInterface, relations: Any) -> RelationGraph:
    """Resolves and checks every relation map against a database's declared tables; anything
    that could not work raises `RelationError` coded `INVALID` before any query runs.
    """
    exported = database.export()
    tables = {
        name: TableShape(
            name, table["primary"], {c: column["type"] for c, column in table["columns"].items()}
        )
        for name, table in exported.items()
    }
    if relations is None:
        relations = {}
    if not isinstance(relations, Mapping):
        raise _refuse(f"relations must map table names to relation maps, not {preview(relations)}")
    resolved: dict[str, dict[str, ResolvedRelation]] = {}
    try:
        maps = list(relations.items())
    except Exception as error:
        raise _refuse(f"the relations could not be read: {error!r}") from None
    for owner, raw in maps:
        shape = tables.get(owner) if isinstance(owner, str) else None
        if shape is None:
            shown = owner if isinstance(owner, str) else preview(owner)
            raise _refuse(f"relations name undeclared table {shown!r}", model=shown, table=shown)
        try:
            found = resolve_relation_map(raw)
        except RelationError as error:
            raise RelationError(
                "INVALID",
                f"model {owner!r}: {error.message}",
                {"model": owner, **(error.context or {})},
            ) from None
        for name, relation in found.items():
            _Checker(tables, owner, name).check(shape, relation)
        resolved[owner] = found
    return RelationGraph(tables, resolved)
