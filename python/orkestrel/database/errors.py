"""The typed failure every database call raises."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

DatabaseErrorCode = Literal[
    "CLOSED", "NOT_FOUND", "CONFLICT", "VALIDATION", "ABORTED", "MIGRATION", "CONFORMANCE", "DRIVER"
]
"""Represents the machine-readable code a raised `DatabaseError` carries."""

DATABASE_ERROR_CODES: frozenset[str] = frozenset(get_args(DatabaseErrorCode))
"""Holds every `DatabaseErrorCode`."""


class DatabaseError(Exception):
    """Represents a database failure with a machine-readable code and optional context.

    `CLOSED`: the database was closed. `NOT_FOUND`: an undeclared table. `CONFLICT`: a duplicate
    key. `VALIDATION`: a row, key, query or declaration that does not fit. `ABORTED`: the call's
    signal fired and its work was rolled back. `MIGRATION`: the stored schema or version does not
    match the declaration. `CONFORMANCE`: a driver broke its contract. `DRIVER`: the engine
    failed; `context["retryable"]` says whether trying again may help.
    """

    code: DatabaseErrorCode
    context: dict[str, Any] | None

    def __init__(
        self, code: DatabaseErrorCode, message: str, context: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.context = context

    @property
    def message(self) -> str:
        """The message alone."""
        return str(self.args[0])

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        extra = "" if self.context is None else f", context={self.context!r}"
        return f"DatabaseError({self.code!r}, {self.message!r}{extra})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (DatabaseError, (self.code, self.message, self.context))


def is_database_error(value: object) -> TypeGuard[DatabaseError]:
    """Narrows an unknown caught value to a `DatabaseError`."""
    return isinstance(value, DatabaseError) and value.code in DATABASE_ERROR_CODES
