"""The typed failure the terminal layer raises."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

TerminalErrorCode = Literal[
    "EXPIRE", "CANCEL", "DRIVER", "DEADLOCK", "TARGET", "LIMIT", "DESTROYED"
]
"""Represents the machine-readable code a raised `TerminalError` carries."""

TERMINAL_ERROR_CODES: frozenset[str] = frozenset(get_args(TerminalErrorCode))
"""Holds every `TerminalErrorCode`: the codes `is_terminal_error` accepts."""


class TerminalError(CodedError[TerminalErrorCode]):
    """Represents a terminal failure with a machine-readable code and an optional context.

    `EXPIRE`: a form parked on a destroyed broker, or one that timed out. `CANCEL`: the person
    declined the form. `DRIVER`: whatever drives a terminal failed, or cannot reach a person.
    `DEADLOCK`: an ask that would close a cycle of waiting terminals (`context["path"]`).
    `TARGET`: an ask to a terminal that is not mounted (`context["known"]`). `LIMIT`: a broker
    at its `cap`, or an SSE line past the buffer limit. `DESTROYED`: a manager used after
    `destroy`.
    """


def is_terminal_error(value: object) -> TypeGuard[TerminalError]:
    """Narrows an unknown caught value to a `TerminalError` carrying a known code."""
    return isinstance(value, TerminalError) and value.code in TERMINAL_ERROR_CODES
