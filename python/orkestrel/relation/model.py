"""The `Model` class: one table's rows loaded with their relations, and its junction rows."""

from __future__ import annotations

import math
import secrets
import time
import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, overload

from orkestrel.abort import AbortSignal
from orkestrel.database import (
    Condition,
    DatabaseError,
    DatabaseInterface,
    Direction,
    Key,
    QueryInput,
    TableInterface,
    Transaction,
)
from orkestrel.relation.errors import RelationError
from orkestrel.relation.graph import RelationGraph
from orkestrel.relation.loader import Loader, check_include
from orkestrel.relation.types import Include, Loaded, ResolvedRelation


def _many(value: Any) -> bool:
    return isinstance(value, list | tuple)


def _key(value: Any, what: str) -> Key:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise DatabaseError(
            "VALIDATION", f"{what} must be a string or a number, not {type(value).__name__}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise DatabaseError("VALIDATION", f"{what} must be finite, not {value!r}")
    return value


class Model:
    """Loads one table's rows with related rows attached and edits its junction rows.

    `load` and `find` read the rows and every relation of the include in one read transaction,
    one query per relation and level (more only past `MAX_VALUES` keys), never one per row.
    `link` and `unlink` are one write transaction each.
    """

    __slots__ = ("_database", "_graph", "_name", "_relations", "_table")

    def __init__(self, database: DatabaseInterface, graph: RelationGraph, name: str) -> None:
        self._database = database
        self._graph = graph
        self._name = name
        self._table = database.table(name)
        self._relations = MappingProxyType(dict(graph.relations_of(name)))

    @property
    def name(self) -> str:
        """The table the model reads."""
        return self._name

    @property
    def table(self) -> TableInterface:
        """The database table behind the model."""
        return self._table

    @property
    def relations(self) -> Mapping[str, ResolvedRelation]:
        """The model's resolved relations by name, read-only."""
        return self._relations

    @overload
    async def load(
        self, key: Key, include: Include | None = None, *, signal: AbortSignal | None = None
    ) -> Loaded | None: ...
    @overload
    async def load(
        self,
        key: list[Key] | tuple[Key, ...],
        include: Include | None = None,
        *,
        signal: AbortSignal | None = None,
    ) -> list[Loaded | None]: ...
    async def load(
        self, key: Any, include: Include | None = None, *, signal: AbortSignal | None = None
    ) -> Any:
        """Reads the row under a key with the include's relations attached (`None` when
        absent), or a list of them, in order, for a list of keys.
        """
        tree = check_include(include)
        single = not _many(key)
        keys = [key] if single else list(key)

        def work(transaction: Transaction) -> list[Loaded | None]:
            rows: list[Loaded | None] = transaction.table(self._name).get(keys)
            seen: set[int] = set()
            for index, row in enumerate(rows):
                if row is not None and id(row) in seen:
                    rows[index] = dict(row)  # a repeated key answers a row of its own
                elif row is not None:
                    seen.add(id(row))
            present = [row for row in rows if row is not None]
            Loader(self._graph, transaction).populate(self._name, present, tree)
            return rows

        found = await self._database.transaction(work, write=False, signal=signal)
        return found[0] if single else found

    async def find(
        self,
        include: Include | None = None,
        *,
        limit: int | None = None,
        offset: int | None = None,
        sort: str | None = None,
        direction: Direction | None = None,
        signal: AbortSignal | None = None,
    ) -> list[Loaded]:
        """Reads a page of rows, sorted by `sort` (then by key) in `direction` (ascending by
        default), with the include's relations attached.
        """
        tree = check_include(include)
        query: QueryInput = {}
        if sort is not None:
            query["order"] = [{"column": sort, "direction": direction or "ascending"}]
        if limit is not None:
            query["limit"] = limit
        if offset is not None:
            query["offset"] = offset

        def work(transaction: Transaction) -> list[Loaded]:
            rows = transaction.table(self._name).records(query)
            return Loader(self._graph, transaction).populate(self._name, rows, tree)

        found: list[Loaded] = await self._database.transaction(work, write=False, signal=signal)
        return found

    def _through(self, relation: Any) -> ResolvedRelation:
        found = self._relations.get(relation) if isinstance(relation, str) else None
        context = {"model": self._name, "relation": relation}
        if found is None:
            raise RelationError(
                "UNKNOWN_RELATION", f"model {self._name!r} has no relation {relation!r}", context
            )
        if found.relationship != "through":
            raise RelationError(
                "NOT_THROUGH",
                f"relation {relation!r} of {self._name!r} is {found.relationship}, not through",
                context,
            )
        return found

    def _pair(self, relation: ResolvedRelation, key: Key, target: Key) -> list[Condition]:
        key, target = _key(key, "a key"), _key(target, "a target key")
        return [
            {"column": relation.source or "", "operator": "equals", "values": [key]},
            {"column": relation.target or "", "operator": "equals", "values": [target]},
        ]

    async def link(
        self, key: Key, relation: str, target: Key, *, signal: AbortSignal | None = None
    ) -> bool:
        """Pairs the row under `key` with the related row under `target` through a `through`
        relation's junction, in one transaction; answers whether a junction row was written
        (`False` when the pair was already linked). A string-keyed junction row gets a
        time-ordered key, so `links` and `load` give the links in the order they were made.
        """
        found = self._through(relation)
        pair = self._pair(found, key, target)

        def work(transaction: Transaction) -> bool:
            # Check-then-add: concurrent links of one pair on PostgreSQL take turns.
            transaction.exclusive(_pair_lock(found.through, key, target))
            junction = transaction.table(found.through or "")
            if junction.count({"conditions": pair}):
                return False
            row: dict[str, Any] = {found.source or "": key, found.target or "": target}
            shape = self._graph.tables[found.through or ""]
            if shape.types.get(shape.primary) == "string":
                row[shape.primary] = ordered_key()
            junction.add(row)
            return True

        linked: bool = await self._database.transaction(work, signal=signal)
        return linked

    async def unlink(
        self, key: Key, relation: str, target: Key, *, signal: AbortSignal | None = None
    ) -> int:
        """Removes every junction row pairing `key` with `target` through a `through` relation,
        in one transaction, and answers how many there were.
        """
        found = self._through(relation)
        pair = self._pair(found, key, target)

        def work(transaction: Transaction) -> int:
            transaction.exclusive(_pair_lock(found.through, key, target))
            junction = transaction.table(found.through or "")
            keys = [row[junction.primary] for row in junction.records({"conditions": pair})]
            return sum(junction.remove(keys)) if keys else 0

        removed: int = await self._database.transaction(work, signal=signal)
        return removed

    async def links(
        self,
        key: Key,
        relation: str,
        *,
        limit: int | None = None,
        signal: AbortSignal | None = None,
    ) -> list[Key]:
        """Lists the related keys the row under `key` is linked to through a `through` relation,
        in junction key order, at most `limit` of them.
        """
        found = self._through(relation)
        key = _key(key, "a key")
        target = found.target or ""
        query: QueryInput = {
            "conditions": [
                {"column": found.source or "", "operator": "equals", "values": [key]},
                {"column": target, "operator": "present", "values": []},
            ]
        }
        if limit is not None:
            query["limit"] = limit
        rows = await self._database.table(found.through or "").records(query, signal=signal)
        return [row[target] for row in rows]

    def __repr__(self) -> str:
        return f"<Model {self._name!r} relations={list(self._relations)!r}>"


def ordered_key() -> str:
    """A UUIDv7 (RFC 9562) string: its text sorts in the order the keys were made, to a
    quarter of a microsecond, where a random key would shuffle the links."""
    now = time.time_ns()
    millis, fraction = divmod(now, 1_000_000)
    value = (millis & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76 | (fraction * 4096 // 1_000_000) << 64
    value |= 0b10 << 62 | secrets.randbits(62)
    return str(uuid.UUID(int=value))


def _pair_lock(through: str | None, key: Key, target: Key) -> str:
    """The lock name of one junction pair; `repr` keeps `1` and `"1"` apart."""
    return f"orkestrel.relation:{through}:{key!r}:{target!r}"
