"""The typed failure every toolbox tool raises."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

ToolboxErrorCode = Literal["TOOL", "DEPTH", "DEADLOCK", "EXPIRE", "ANSWER", "DATABASE", "RELATION"]
"""Represents the machine-readable code a raised `ToolboxError` carries."""

__all__ = ["TOOLBOX_ERROR_CODES", "ToolboxError", "ToolboxErrorCode", "is_toolbox_error"]

TOOLBOX_ERROR_CODES: frozenset[str] = frozenset(get_args(ToolboxErrorCode))
"""Lists every `ToolboxErrorCode`: the codes `is_toolbox_error` accepts."""


class ToolboxError(Exception):
    """Represents a failure a toolbox tool raises on purpose, carrying a machine-readable `code`
    and an optional `context` dict.

    `TOOL` marks malformed arguments or unresolved configuration, and `DATABASE` a database-layer
    failure translated by the database tool (its own code in `context["code"]`). `DEPTH`
    (delegation depth or cycle), `DEADLOCK`, `EXPIRE`, `ANSWER` (prompt failures) and `RELATION`
    keep the seed's meanings for the tools not ported yet.

    `str()` gives the message alone, so a `ToolManager` flattens it to exactly that text.
    """

    code: ToolboxErrorCode
    context: dict[str, Any] | None

    def __init__(
        self, code: ToolboxErrorCode, message: str, context: dict[str, Any] | None = None
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
        return f"ToolboxError({self.code!r}, {self.message!r}{extra})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ToolboxError, (self.code, self.message, self.context))


def is_toolbox_error(value: object) -> TypeGuard[ToolboxError]:
    """Narrows an unknown caught value to a `ToolboxError`."""
    return isinstance(value, ToolboxError) and value.code in TOOLBOX_ERROR_CODES
