"""The plain data and the interfaces of the relation layer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, Union, overload

if TYPE_CHECKING:
    from orkestrel.abort import AbortSignal
    from orkestrel.database import DatabaseInterface, Direction, Key, TableInterface

Relationship = Literal["belongs", "many", "one", "through", "morph"]
"""Represents the five relation kinds: where the foreign key lives and what a load attaches."""


class RelationDescriptor(TypedDict, total=False):
    """Describes one relation in object form: its kind (inferred when left out), the related
    `model` (the relation's name when left out) and the columns the kind needs.
    """

    relationship: Relationship
    model: str
    column: str
    key: str
    through: str
    source: str
    target: str
    tag: str
    label: str | int | float


Relation = str | Sequence[str] | RelationDescriptor
"""Represents one relation as written: a `belongs` foreign-key column, a one-element list
holding a `many` foreign-key column, or a `RelationDescriptor`.
"""

RelationMap = Mapping[str, Relation]
"""Represents one model's relations: relation name to `Relation`."""

RelationMaps = Mapping[str, RelationMap]
"""Represents every model's relations: table name to its `RelationMap`."""

Include = Mapping[str, Union[bool, "Include"]]
"""Represents which relations a load attaches: `True` attaches one, `False` skips it, and a
nested include attaches it with the related rows' own relations.
"""

Loaded = dict[str, Any]
"""Represents a loaded row: its columns plus one key per attached relation."""


@dataclass(frozen=True, slots=True)
class ResolvedRelation:
    """Describes one relation after define-time resolution: its kind, name and related model,
    with the columns its kind uses (the others are `None`).
    """

    relationship: Relationship
    name: str
    model: str
    column: str | None = None
    key: str | None = None
    through: str | None = None
    source: str | None = None
    target: str | None = None
    tag: str | None = None
    label: str | int | float | None = None


class ModelInterface(Protocol):
    """Represents one table with its relations: rows loaded with related rows attached in
    batched reads, and the junction rows of its `through` relations.
    """

    @property
    def name(self) -> str: ...
    @property
    def table(self) -> TableInterface: ...
    @property
    def relations(self) -> Mapping[str, ResolvedRelation]: ...
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
    async def find(
        self,
        include: Include | None = None,
        *,
        limit: int | None = None,
        offset: int | None = None,
        sort: str | None = None,
        direction: Direction | None = None,
        signal: AbortSignal | None = None,
    ) -> list[Loaded]: ...
    async def link(
        self, key: Key, relation: str, target: Key, *, signal: AbortSignal | None = None
    ) -> bool: ...
    async def unlink(
        self, key: Key, relation: str, target: Key, *, signal: AbortSignal | None = None
    ) -> int: ...
    async def links(
        self,
        key: Key,
        relation: str,
        *,
        limit: int | None = None,
        signal: AbortSignal | None = None,
    ) -> list[Key]: ...


class RelationManagerInterface(Protocol):
    """Represents the models of one database: every declared table as a model, and the tables
    given a relation map listed as the manager's models.
    """

    @property
    def database(self) -> DatabaseInterface: ...
    @property
    def count(self) -> int: ...
    def model(self, name: str) -> ModelInterface: ...
    def models(self) -> list[str]: ...
    def has(self, name: str) -> bool: ...
