"""`ProgressPacer`: a call's progress reports, sent to its caller at a bounded rate."""

from __future__ import annotations

import contextlib
import math

import anyio

from orkestrel.tool.context import ToolContext

PROGRESS_INTERVAL = 0.5
"""The least time in seconds between two progress reports a `ProgressPacer` sends: a report
that comes sooner is dropped, so the next one sent carries the latest count (coalesced)."""


class ProgressPacer:
    """Sends a call's progress to its `ToolContext` at most once per `interval` seconds; the
    first report and the last (`done == total`) always go out. A caller that is gone (its
    connection closed) does not fail the work."""

    __slots__ = ("_caller", "_interval", "_sent")

    def __init__(self, caller: ToolContext, interval: float = PROGRESS_INTERVAL) -> None:
        self._caller = caller
        self._interval = interval
        self._sent = -math.inf

    async def report(self, done: int, total: int, message: str) -> None:
        """Sends `done` of `total` with `message`, unless one went out under `interval` ago
        and this is not the last."""
        at = anyio.current_time()
        if done < total and at - self._sent < self._interval:
            return
        self._sent = at
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._caller.report_progress(done, total, message)
