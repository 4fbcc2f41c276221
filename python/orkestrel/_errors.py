"""The base of the coded errors the layers raise: a message, a closed code and a context."""

from __future__ import annotations

from typing import Any, Generic, NoReturn, TypeVar

CodeT = TypeVar("CodeT", bound=str)


class CodedError(Exception, Generic[CodeT]):
    """Carries a machine-readable code and an optional context beside its message.

    `str()` gives the message alone, so a `ToolManager` flattens the error to that text.
    """

    code: CodeT
    context: dict[str, Any] | None

    def __init__(self, code: CodeT, message: str, context: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.context = context

    @property
    def message(self) -> str:
        """The message alone, without code or context."""
        return str(self.args[0])

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        extra = "" if self.context is None else f", context={self.context!r}"
        return f"{type(self).__name__}({self.code!r}, {self.message!r}{extra})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.message, self.context))


def message_of(error: BaseException) -> str:
    """An error's one-line text: `str(error)`, or its class name when that is empty or fails
    (a `MemoryError` has no text), so no report ever ends in an empty message."""
    try:
        text = str(error)
    except Exception:
        text = ""
    return text if isinstance(text, str) and text.strip() else type(error).__name__


def raise_alone(group: BaseExceptionGroup[BaseException]) -> NoReturn:
    """Re-raises the one exception a chain of single-member exception groups wraps, keeping its
    own cause, or the group itself when it holds several."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    raise error from error.__cause__
