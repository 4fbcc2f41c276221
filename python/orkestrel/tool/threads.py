"""Running sync handlers in worker threads that a timeout or a cancellation can walk away from.

Python cannot stop a thread, so a cancelled call abandons its thread: the call fails at once and
whatever the thread later returns or raises is dropped. An abandoned thread keeps its place in
the tool thread limiter until it really ends, so handlers that hang cannot pile up unbounded
threads: at most `TOOL_THREAD_LIMIT` sync handlers run at once per event loop, abandoned ones
included, and further calls wait for a place (and time out while waiting, if they must).
"""

from __future__ import annotations

import asyncio
import functools
import math
import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar, current_token

from orkestrel._limiters import loop_limiter

T = TypeVar("T")

TOOL_THREAD_LIMIT: Final = 40
"""How many sync tool handlers run at once per event loop, abandoned ones included: the size of
the `tool_thread_limiter()`, apart from the limiter the database layer uses."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("orkestrel_tool_threads")
_UNBOUNDED: RunVar[anyio.CapacityLimiter] = RunVar("orkestrel_tool_threads_unbounded")


def tool_thread_limiter() -> anyio.CapacityLimiter:
    """Returns the current event loop's limiter for sync tool handlers, created with
    `TOOL_THREAD_LIMIT` tokens on first use; set its `total_tokens` to change the size."""
    return loop_limiter(_LIMITER, TOOL_THREAD_LIMIT)


def _unbounded() -> anyio.CapacityLimiter:
    # The real bound is `tool_thread_limiter()`; this one only keeps anyio's shared default
    # limiter out of the way.
    return loop_limiter(_UNBOUNDED, math.inf)


class _Lease:
    """Holds one token of the limiter for one handler thread, released exactly once: by the
    awaiting task when the thread answered, else by the thread itself when it ends."""

    __slots__ = ("_abandoned", "_borrower", "_done", "_limiter", "_lock", "_token")

    def __init__(self, limiter: anyio.CapacityLimiter) -> None:
        self._limiter = limiter
        self._borrower = object()
        self._lock = threading.Lock()
        self._done = False
        self._abandoned = False
        self._token = current_token()

    async def acquire(self) -> None:
        await self._limiter.acquire_on_behalf_of(self._borrower)

    def finish_in_thread(self) -> None:
        with self._lock:
            self._done = True
            abandoned = self._abandoned
        if not abandoned:
            return
        # Scheduled, not awaited: the loop may be busy or gone, and this thread must end.
        release = functools.partial(self._limiter.release_on_behalf_of, self._borrower)
        native: Any = self._token.native_token
        try:
            if isinstance(native, asyncio.AbstractEventLoop):
                native.call_soon_threadsafe(release)
            else:
                native.run_sync_soon(release)
        except RuntimeError:
            pass  # the event loop has closed, and its limiter with it

    def settle(self, answered: bool) -> None:
        with self._lock:
            release = answered or self._done
            self._abandoned = not release
        if release:
            self._limiter.release_on_behalf_of(self._borrower)


async def run_in_thread(call: Callable[[], T]) -> T:
    """Runs `call` in a worker thread and returns its result; a cancellation (a timeout
    included) raises at once and abandons the thread, whose late result is dropped."""
    lease = _Lease(tool_thread_limiter())
    await lease.acquire()

    def work() -> tuple[T]:
        try:
            # Boxed so that a sync handler may return an awaitable: trio refuses to hand a
            # coroutine back from a worker thread.
            return (call(),)
        finally:
            lease.finish_in_thread()

    answered = False
    try:
        (result,) = await anyio.to_thread.run_sync(
            work, abandon_on_cancel=True, limiter=_unbounded()
        )
        answered = True
    finally:
        lease.settle(answered)
    return result
