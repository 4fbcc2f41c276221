"""The typed failure every toolbox tool raises."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

ToolboxErrorCode = Literal["TOOL", "DEPTH", "DEADLOCK", "EXPIRE", "ANSWER", "DATABASE", "RELATION"]
"""Represents the machine-readable code a raised `ToolboxError` carries."""

__all__ = ["TOOLBOX_ERROR_CODES", "ToolboxError", "ToolboxErrorCode", "is_toolbox_error"]

TOOLBOX_ERROR_CODES: frozenset[str] = frozenset(get_args(ToolboxErrorCode))
"""Lists every `ToolboxErrorCode`: the codes `is_toolbox_error` accepts."""


class ToolboxError(CodedError[ToolboxErrorCode]):
    """Represents a failure a toolbox tool raises on purpose, carrying a machine-readable `code`
    and an optional `context` dict.

    `TOOL` marks malformed arguments or unresolved configuration, `DEPTH` a delegation or
    workflow chain refused for its depth or a cycle, `DATABASE` a database-layer failure
    translated by the database or relation tool, and `RELATION` a relation-layer failure
    translated by the relation tool (each with the layer's own code in `context["code"]`).
    `DEADLOCK`, `EXPIRE` and `ANSWER` are the prompt and answer tools' failures.

    `str()` gives the message alone, so a `ToolManager` flattens it to exactly that text.
    """


def is_toolbox_error(value: object) -> TypeGuard[ToolboxError]:
    """Narrows an unknown caught value to a `ToolboxError`."""
    return isinstance(value, ToolboxError) and value.code in TOOLBOX_ERROR_CODES
