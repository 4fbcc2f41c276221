"""The typed failure every database call raises."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

DatabaseErrorCode = Literal[
    "CLOSED", "NOT_FOUND", "CONFLICT", "VALIDATION", "ABORTED", "MIGRATION", "CONFORMANCE", "DRIVER"
]
"""Represents the machine-readable code a raised `DatabaseError` carries."""

DATABASE_ERROR_CODES: frozenset[str] = frozenset(get_args(DatabaseErrorCode))
"""Holds every `DatabaseErrorCode`."""


class DatabaseError(CodedError[DatabaseErrorCode]):
    """Represents a database failure with a machine-readable code and optional context.

    `CLOSED`: the database was closed. `NOT_FOUND`: an undeclared table. `CONFLICT`: a duplicate
    key. `VALIDATION`: a row, key, query or declaration that does not fit. `ABORTED`: the call's
    signal fired and its work was rolled back. `MIGRATION`: the stored schema or version does not
    match the declaration. `CONFORMANCE`: a driver broke its contract. `DRIVER`: the engine
    failed; `context["retryable"]` says whether trying again may help.
    """


def is_database_error(value: object) -> TypeGuard[DatabaseError]:
    """Determines whether a caught value is a `DatabaseError` carrying a known code, narrowing
    its type."""
    return isinstance(value, DatabaseError) and value.code in DATABASE_ERROR_CODES
