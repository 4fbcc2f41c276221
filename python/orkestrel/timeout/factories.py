"""The constructor-free way to reach `Timeout`."""

from __future__ import annotations

from orkestrel.abort import AbortSignal
from orkestrel.timeout.timeout import Timeout
from orkestrel.timeout.types import TimeoutInterface


def create_timeout(
    *, ms: int | float, id: str | None = None, signal: AbortSignal | None = None
) -> TimeoutInterface:
    """Creates a deadline handle from validated `TimeoutOptions` and returns it as a
    `TimeoutInterface`.
    """
    return Timeout(ms=ms, id=id, signal=signal)
