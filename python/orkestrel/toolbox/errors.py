"""The typed failure every toolbox tool raises."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

ToolboxErrorCode = Literal["TOOL", "DEPTH", "DEADLOCK", "EXPIRE", "ANSWER", "DATABASE", "RELATION"]
"""Represents the machine-readable code a raised `ToolboxError` carries."""

__all__ = ["TOOLBOX_ERROR_CODES", "ToolboxError", "ToolboxErrorCode", "is_toolbox_error"]

TOOLBOX_ERROR_CODES: frozenset[str] = frozenset(get_args(ToolboxErrorCode))


class ToolboxError(Exception):
    """Represents a package-owned tool-call failure: malformed input or unresolved configuration
    (`TOOL`), delegation depth or cycle rejection (`DEPTH`), prompt failure (`DEADLOCK`,
    `EXPIRE`, `ANSWER`), or a translated upstream database or relation failure (`DATABASE`,
    `RELATION`).

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
