"""Batched eager loading: the related rows of a whole set of rows, one read per relation and
level (split in chunks of at most `MAX_VALUES` keys), inside one read transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from orkestrel.contract.helpers import preview
from orkestrel.database import MAX_VALUES, ColumnType, Condition, Row, Transaction
from orkestrel.relation.errors import RelationError
from orkestrel.relation.graph import RelationGraph, TableShape
from orkestrel.relation.types import Loaded, ResolvedRelation

MAX_INCLUDE_DEPTH: Final = 32
"""Holds how many relation levels an include tree may nest, `32`."""

Tree = dict[str, "bool | Tree"]


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float)


def _is_string(value: Any) -> bool:
    return type(value) is str


_ACCEPTS: Final[dict[str, Callable[[Any], bool]]] = {
    "string": _is_string,
    "integer": _is_integer,
    "number": _is_number,
}


def accepts(kind: ColumnType) -> Callable[[Any], bool]:
    """The test a value must pass to be matched against a key column of this type: keys match
    exactly, so a string never joins a number (`"1"` is not `1`)."""
    return _ACCEPTS[kind]


def check_include(include: Any, depth: int = 0) -> Tree:
    """Copies an include tree into plain dicts, or raises `RelationError` coded `INVALID` when it
    is not one: a mapping of relation names to `True`, `False` or a nested include, at most
    `MAX_INCLUDE_DEPTH` levels deep.
    """
    if include is None:
        return {}
    if not isinstance(include, Mapping):
        raise RelationError("INVALID", f"an include must be a mapping, not {preview(include)}")
    if depth >= MAX_INCLUDE_DEPTH and include:
        raise RelationError(
            "INVALID", f"an include may nest at most {MAX_INCLUDE_DEPTH} levels deep"
        )
    tree: Tree = {}
    try:
        items = list(include.items())
    except Exception as error:
        raise RelationError("INVALID", f"the include could not be read: {error!r}") from None
    for name, sub in items:
        if type(name) is not str:
            raise RelationError(
                "INVALID", f"an include names relations by string, not {preview(name)}"
            )
        if isinstance(sub, bool):
            tree[name] = sub
        elif isinstance(sub, Mapping):
            tree[name] = check_include(sub, depth + 1)
        else:
            raise RelationError(
                "INVALID",
                f"include {name!r} must be true, false or a nested include, not {preview(sub)}",
                {"relation": name},
            )
    return tree


def _distinct(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


class Loader:
    """Attaches related rows to a set of rows through one transaction's table views."""

    __slots__ = ("_graph", "_transaction")

    def __init__(self, graph: RelationGraph, transaction: Transaction) -> None:
        self._graph = graph
        self._transaction = transaction

    def populate(self, table: str, rows: list[Row], include: Tree) -> list[Loaded]:
        """Attaches every relation the include names to `rows`, in place, and returns them; a
        name the table does not declare is skipped.

        Every key is read before anything is attached, so a relation named like a column
        replaces that column without changing what the other relations join on.
        """
        if not rows:
            return rows
        relations = self._graph.relations_of(table)
        owner = self._graph.tables[table]
        attached: list[tuple[str, list[Any]]] = []
        for name, sub in include.items():
            relation = relations.get(name)
            if sub is False or relation is None:
                continue
            nested = sub if isinstance(sub, dict) else {}
            attached.append((name, self._values(owner, relation, rows, nested)))
        for name, values in attached:
            for row, value in zip(rows, values, strict=True):
                row[name] = value
        return rows

    def _fetch(
        self, table: TableShape, column: str, values: list[Any], extra: list[Condition]
    ) -> list[Row]:
        view = self._transaction.table(table.name)
        found: list[Row] = []
        for start in range(0, len(values), MAX_VALUES):
            chunk = values[start : start + MAX_VALUES]
            condition: Condition = {"column": column, "operator": "any", "values": chunk}
            found.extend(view.records({"conditions": [*extra, condition]}))
        return found

    def _related(
        self,
        table: TableShape,
        column: str,
        values: list[Any],
        extra: list[Condition],
        nested: Tree,
        by: str,
    ) -> list[tuple[Any, Loaded]]:
        """The related rows whose `column` holds one of `values`, each with its `by` cell read
        before the nested include is attached."""
        found = self._fetch(table, column, values, extra)
        keyed = [(row[by], row) for row in found]
        self.populate(table.name, found, nested)
        return keyed

    def _values(
        self, owner: TableShape, relation: ResolvedRelation, rows: list[Row], nested: Tree
    ) -> list[Any]:
        related = self._graph.tables[relation.model]
        kind = relation.relationship
        if kind == "belongs":
            return self._belongs(related, relation.column or "", rows, nested)
        if kind == "through":
            return self._through(owner, related, relation, rows, nested)
        key = relation.key or ""
        extra: list[Condition] = []
        if kind == "morph":
            tag = relation.tag or ""
            extra = [{"column": tag, "operator": "equals", "values": [relation.label]}]
        fits = accepts(related.types[key])
        primary = owner.primary
        keys = _distinct(row[primary] for row in rows if fits(row[primary]))
        groups: dict[Any, list[Loaded]] = {}
        for value, item in self._related(related, key, keys, extra, nested, key):
            group = groups.get(value)
            if group is None:
                groups[value] = [item]
            else:
                group.append(item)
        if kind == "one":
            firsts = {value: group[0] for value, group in groups.items()}
            return [firsts.get(row[primary]) for row in rows]
        empty: tuple[Loaded, ...] = ()
        return [list(groups.get(row[primary], empty)) for row in rows]

    def _belongs(
        self, related: TableShape, column: str, rows: list[Row], nested: Tree
    ) -> list[Any]:
        fits = accepts(related.types[related.primary])
        keys = _distinct(row[column] for row in rows if column in row and fits(row[column]))
        by_key = dict(self._related(related, related.primary, keys, [], nested, related.primary))
        return [by_key.get(row[column]) if column in row else None for row in rows]

    def _through(
        self,
        owner: TableShape,
        related: TableShape,
        relation: ResolvedRelation,
        rows: list[Row],
        nested: Tree,
    ) -> list[Any]:
        junction = self._graph.tables[relation.through or ""]
        source, target = relation.source or "", relation.target or ""
        fits = accepts(junction.types[source])
        keys = _distinct(row[owner.primary] for row in rows if fits(row[owner.primary]))
        pairs: dict[Any, list[Any]] = {}
        for link in self._fetch(junction, source, keys, []):
            if target in link:
                pairs.setdefault(link[source], []).append(link[target])
        fits = accepts(related.types[related.primary])
        targets = _distinct(t for group in pairs.values() for t in group if fits(t))
        primary = related.primary
        by_key = dict(self._related(related, primary, targets, [], nested, primary))
        return [
            [by_key[t] for t in pairs.get(row[owner.primary], ()) if t in by_key] for row in rows
        ]
