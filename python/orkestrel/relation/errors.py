"""The typed failure the relation layer raises."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

RelationErrorCode = Literal["INVALID", "UNKNOWN_RELATION", "NOT_THROUGH"]
"""Represents the machine-readable code a raised `RelationError` carries."""

RELATION_ERROR_CODES: frozenset[str] = frozenset(get_args(RelationErrorCode))
"""Holds every `RelationErrorCode`."""


class RelationError(CodedError[RelationErrorCode]):
    """Represents a relation-layer failure with a machine-readable code and optional context.

    `INVALID`: a relation map that cannot work (an undeclared table or column, a missing
    field), raised when the manager is built, or a malformed include. `UNKNOWN_RELATION`: a
    junction call names a relation the model does not declare. `NOT_THROUGH`: a junction call
    names a relation of another kind.
    """


def is_relation_error(value: object) -> TypeGuard[RelationError]:
    """Determines whether a caught value is a `RelationError` carrying a known code, narrowing
    its type."""
    return isinstance(value, RelationError) and value.code in RELATION_ERROR_CODES
