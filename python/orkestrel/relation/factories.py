"""The constructor-free way to reach `RelationManager`."""

from __future__ import annotations

from orkestrel.database import DatabaseInterface
from orkestrel.relation.manager import RelationManager
from orkestrel.relation.types import RelationManagerInterface, RelationMaps


def create_relation_manager(
    *, database: DatabaseInterface, relations: RelationMaps | None = None
) -> RelationManagerInterface:
    """Creates the relation manager of a database, returned as a `RelationManagerInterface`;
    every relation map is checked against the declared tables at once.
    """
    return RelationManager(database=database, relations=relations)
