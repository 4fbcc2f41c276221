"""Relations over the database layer: name a table's relations once, then load rows with their
related rows attached, in batched reads, and edit many-to-many junction rows.

    manager = create_relation_manager(
        database=database,
        relations={
            "accounts": {"contacts": has_many("accountId")},
            "contacts": {"account": belongs_to("accountId", "accounts")},
        },
    )
    accounts = manager.model("accounts")
    await accounts.load("acc1", {"contacts": {"account": True}})
    await accounts.find({"contacts": True}, limit=20, sort="name")

Each `load` or `find` is one read transaction issuing one query per relation and level, never
one per row; each `link` or `unlink` is one write transaction. Failures are `RelationError`s
with a `code`, or the database's own `DatabaseError`s.
"""

from orkestrel.relation.builders import belongs_to, has_many, has_morph, has_one, has_through
from orkestrel.relation.errors import (
    RELATION_ERROR_CODES,
    RelationError,
    RelationErrorCode,
    is_relation_error,
)
from orkestrel.relation.factories import create_relation_manager
from orkestrel.relation.helpers import (
    RELATIONSHIPS,
    is_relation_descriptor,
    resolve_relation,
    resolve_relation_map,
)
from orkestrel.relation.loader import MAX_INCLUDE_DEPTH
from orkestrel.relation.manager import RelationManager
from orkestrel.relation.model import Model
from orkestrel.relation.types import (
    Include,
    Loaded,
    ModelInterface,
    Relation,
    RelationDescriptor,
    RelationManagerInterface,
    RelationMap,
    RelationMaps,
    Relationship,
    ResolvedRelation,
)

__all__ = [
    "MAX_INCLUDE_DEPTH",
    "RELATIONSHIPS",
    "RELATION_ERROR_CODES",
    "Include",
    "Loaded",
    "Model",
    "ModelInterface",
    "Relation",
    "RelationDescriptor",
    "RelationError",
    "RelationErrorCode",
    "RelationManager",
    "RelationManagerInterface",
    "RelationMap",
    "RelationMaps",
    "Relationship",
    "ResolvedRelation",
    "belongs_to",
    "create_relation_manager",
    "has_many",
    "has_morph",
    "has_one",
    "has_through",
    "is_relation_descriptor",
    "is_relation_error",
    "resolve_relation",
    "resolve_relation_map",
]
