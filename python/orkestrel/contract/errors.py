"""Errors raised by declarations (`ContractError`) and by failed parses (`ParseError`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeGuard, get_args

from orkestrel._core import FaultReport
from orkestrel._errors import CodedError

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
"""The closed set of `ContractError` codes, one per kind of refusal."""

CONTRACT_ERROR_CODES: frozenset[str] = frozenset(get_args(ContractErrorCode))
"""Every `ContractErrorCode`, as a frozen set of strings for membership tests."""


class ContractError(CodedError[ContractErrorCode], ValueError):
    """Reports a bad declaration, a refused clone or an input that could not be read, with a
    `code` from a closed set.

    `context` carries `path`, `shape`, `limit` and `received` when they are known.
    """

    def __init__(
        self,
        message: str,
        *,
        code: ContractErrorCode,
        context: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(code, message, context)

    def __repr__(self) -> str:
        return f"ContractError({self.message!r}, code={self.code!r}, context={self.context!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.message, self.code, self.context))


def _rebuild(
    message: str, code: ContractErrorCode, context: dict[str, Any] | None
) -> ContractError:
    return ContractError(message, code=code, context=context)


def _describe(fault: Mapping[str, Any]) -> str:
    where = "/".join(str(segment) for segment in fault.get("path", [])) or "<root>"
    reason = fault.get("reason")
    if reason == "missing" and fault.get("expected") == "union":
        # "missing union" names the shape's kind, which tells a model nothing.
        return f"{where}: missing (a required value)"
    if reason == "missing":
        return f"{where}: missing {fault.get('expected')}"
    if reason == "type" and fault.get("expected") == "object" == fault.get("received"):
        # The core names a value that is not JSON by its Python type, so this is a dict with a
        # key that is not a string, or a bare `object()` (or one past the core's type names).
        expected = "expected object (a dict with string keys)"
        return f"{where}: {expected}, received an object that is not one"
    if reason == "type":
        return f"{where}: expected {fault.get('expected')}, received {fault.get('received')}"
    if reason == "constraint":
        limit = f" {fault['limit']}" if "limit" in fault else ""
        return f"{where}: {fault.get('constraint')}{limit} failed for {fault.get('received')}"
    if reason == "variant":
        return f"{where}: no variant of {fault.get('variants')} matched"
    return f"{where}: {fault.get('matched')} oneOf variants matched"


class ParseError(ValueError):
    """Reports a value that a contract could not parse; `faults` is its `explain` report.

    It is a sibling of `ContractError`, not a subclass: a bad value and a bad declaration are
    caught separately.
    """

    def __init__(
        self, faults: Sequence[Mapping[str, Any]] | FaultReport, message: str | None = None
    ) -> None:
        super().__init__(faults, message)

    @property
    def faults(self) -> list[Any]:
        """The `explain` report of the value, as a list of fault dicts."""
        cached: list[Any] | None = self.__dict__.get("_faults")
        if cached is None:
            source = self.args[0] if self.args else []
            cached = list(source.to_list() if isinstance(source, FaultReport) else source)
            self.__dict__["_faults"] = cached
        return cached

    @property
    def message(self) -> str:
        """The message: a summary of the first faults (built when first read)."""
        given = self.args[1] if len(self.args) > 1 else None
        if isinstance(given, str):
            return given
        cached: str | None = self.__dict__.get("_message")
        if cached is None:
            faults = self.faults
            head = "; ".join(_describe(fault) for fault in faults[:3])
            more = f" (+{len(faults) - 3} more)" if len(faults) > 3 else ""
            cached = f"parse: the value does not satisfy the contract: {head}{more}"
            self.__dict__["_message"] = cached
        return cached

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"ParseError({self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ParseError, (self.faults, self.message))


def is_contract_error(value: object) -> TypeGuard[ContractError]:
    """Determines whether a value is a `ContractError` carrying one of the known codes."""
    return isinstance(value, ContractError) and value.code in CONTRACT_ERROR_CODES
