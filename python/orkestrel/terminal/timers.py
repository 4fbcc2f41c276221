"""The default timer the brokers arm their expiry with."""

from __future__ import annotations

from collections.abc import Callable

from orkestrel.terminal.types import TimerCancel
from orkestrel.timeout.scheduler import schedule


def default_timer(callback: Callable[[], None], ms: int) -> TimerCancel:
    """Runs `callback` once after `ms` milliseconds on the running event loop (asyncio or
    trio) or, with none, on a timer thread; the returned cancel is idempotent."""
    return schedule(ms / 1000, callback)
