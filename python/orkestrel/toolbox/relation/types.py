"""The plain data of the relation tool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, TypedDict

from orkestrel.database import Key
from orkestrel.relation import RelationManagerInterface

RelationOperation = Literal["load", "find", "link", "unlink", "links"]
"""Represents the operation a relation-tool call names."""


class RelationToolOptions(TypedDict, total=False):
    """Represents the options for `create_relation_tool`: the live relation managers a call
    addresses, the row cap, the include depth cap and the byte cap, plus name and description
    overrides.
    """

    name: str
    description: str
    managers: Mapping[str, RelationManagerInterface]
    limit: int
    depth: int
    size: int


class LinksResult(TypedDict):
    """Represents a `links` answer: the linked keys, how many, whether more exist, and the cap."""

    keys: list[Key]
    count: int
    truncated: bool
    limit: int
