"""Total guards for timeout inputs."""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from orkestrel.abort import AbortSignal, is_abort_signal
from orkestrel.timeout.constants import MAX_TIMEOUT_MS


def is_timeout_duration(value: Any) -> TypeGuard[int | float]:
    """Determines whether a value is an integer from `0` through `MAX_TIMEOUT_MS`, for any input.

    `bool` is not a number here; a float counts when it is finite and whole, so `5.0` and `-0.0`
    pass while `0.5` does not.
    """
    try:
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return bool(0 <= value <= MAX_TIMEOUT_MS)
        if isinstance(value, float):
            return math.isfinite(value) and value.is_integer() and 0 <= value <= MAX_TIMEOUT_MS
    except Exception:
        return False
    return False


def is_timeout_signal(value: Any) -> TypeGuard[AbortSignal]:
    """Determines whether a value is a genuine `AbortSignal`, refusing look-alikes and spoofs."""
    return is_abort_signal(value)
