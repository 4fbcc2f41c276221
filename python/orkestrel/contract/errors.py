"""Errors raised by declarations (`ContractError`) and by failed parses (`ParseError`)."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

ContractErrorCode = Literal[
    "bound",
    "range",
    "empty",
    "placement",
    "structure",
    "literal",
    "cycle",
    "pattern",
    "generate",
    "random",
    "clone",
    "depth",
    "expansion",
]

CONTRACT_ERROR_CODES: frozenset[str] = frozenset(get_args(ContractErrorCode))


class ContractError(ValueError):
    """Reports a bad declaration or a value that could not be read, with a closed `code`.

    `context` carries `path`, `shape`, `limit` and `received` when they are known.
    """

    code: ContractErrorCode
    context: dict[str, Any] | None

    def __init__(
        self,
        message: str,
        *,
        code: ContractErrorCode,
        context: dict[str, Any] | None = None,
    ) -> None:
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
        return f"ContractError({self.message!r}, code={self.code!r}, context={self.context!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.message, self.code, self.context))


def _rebuild(
    message: str, code: ContractErrorCode, context: dict[str, Any] | None
) -> ContractError:
    return ContractError(message, code=code, context=context)


def is_contract_error(value: object) -> TypeGuard[ContractError]:
    """Determines whether a value is a `ContractError` carrying one of the known codes."""
    return isinstance(value, ContractError) and value.code in CONTRACT_ERROR_CODES
