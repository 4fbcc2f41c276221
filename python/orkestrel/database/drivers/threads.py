"""The worker-thread limiter of the database layer, apart from the one sync tool handlers use,
so that busy tools never hold up a query and busy queries never hold up the tools.

Its tokens are handed out fairly: units of work waiting for a thread queue per caller (an MCP
client session, when `orkestrel serve` tells the limiter how to tell them apart), and the
callers take turns, so one caller's flood of calls cannot hold back another caller's single
call; each caller also runs at most `per_caller` units at once.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Hashable
from typing import Final, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar

from orkestrel._limiters import loop_limiter

T = TypeVar("T")

DATABASE_THREAD_LIMIT: Final = 16
"""How many units of work the database layer runs in worker threads at once per event loop,
across all its drivers: the size of the `database_thread_limiter()`."""

Caller = Callable[[], Hashable | None]
"""Names the caller the running task works for (`None` for no one in particular)."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("orkestrel_database_threads")
_FAIR: RunVar[FairLimiter] = RunVar("orkestrel_database_fair")


def database_thread_limiter() -> anyio.CapacityLimiter:
    """Returns the current event loop's limiter for the database layer's worker threads,
    created with `DATABASE_THREAD_LIMIT` tokens on first use; set its `total_tokens` to change
    the size."""
    return loop_limiter(_LIMITER, DATABASE_THREAD_LIMIT)


def database_fair_limiter() -> FairLimiter:
    """Returns the current event loop's `FairLimiter`, which hands out the tokens of
    `database_thread_limiter()` to callers in turn; set its `caller` and `per_caller` to
    make it tell callers apart and cap each."""
    try:
        return _FAIR.get()
    except LookupError:
        fair = FairLimiter(database_thread_limiter())
        _FAIR.set(fair)
        return fair


async def run_in_database_thread(
    fn: Callable[..., T], *args: object, abandon_on_cancel: bool = False
) -> T:
    """Runs `fn(*args)` in a worker thread once the caller's turn at a database thread token
    comes; a cancelled call that abandons its thread gives its token back at once."""
    fair = database_fair_limiter()
    key = fair.caller()
    borrower = object()
    await fair.acquire(key, borrower)
    try:
        return await anyio.to_thread.run_sync(
            fn, *args, abandon_on_cancel=abandon_on_cancel, limiter=fair.threads
        )
    finally:
        fair.release(key, borrower)


def _nobody() -> Hashable | None:
    return None


class FairLimiter:
    """Hands out the tokens of a `CapacityLimiter` to callers in turn.

    Waiting units queue per caller (`caller()` names the one the running task works for); the
    callers with waiting units take turns, one unit each, and a caller that already runs
    `per_caller` units waits its next turn until one of them ends. One waiter at a time (the
    one whose turn it is) waits on the limiter itself, so anything else that takes or gives back
    its tokens is honoured.
    """

    __slots__ = (
        "_baton",
        "_limiter",
        "_queues",
        "_rotation",
        "_running",
        "caller",
        "per_caller",
        "threads",
    )

    def __init__(self, limiter: anyio.CapacityLimiter, *, per_caller: int | None = None) -> None:
        self._limiter = limiter
        self.per_caller: int | None = per_caller
        """Most units one caller runs at once; `None` bounds them by the limiter alone."""
        self.caller: Caller = _nobody
        """Names the caller of the running task: a session, a client; `None` by default."""
        self._queues: dict[Hashable | None, deque[anyio.Event]] = {}
        self._rotation: deque[Hashable | None] = deque()
        self._running: dict[Hashable | None, int] = {}
        self._baton = False
        # The bound is this limiter's; this one keeps anyio's shared default limiter out of it.
        self.threads = anyio.CapacityLimiter(math.inf)
        """The limiter the worker threads themselves run under: unbounded."""

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        """The limiter whose tokens are handed out."""
        return self._limiter

    @property
    def waiting(self) -> int:
        """Counts the units waiting for a token now, over every caller."""
        return sum(len(queue) for queue in self._queues.values()) + int(self._baton)

    def running(self, key: Hashable | None) -> int:
        """Counts the units caller `key` runs now."""
        return self._running.get(key, 0)

    async def acquire(self, key: Hashable | None, borrower: object) -> None:
        """Takes one token for `borrower` on behalf of caller `key`, in the caller's turn."""
        if not self._baton and not self._rotation and self._under_cap(key):
            try:
                self._limiter.acquire_on_behalf_of_nowait(borrower)
            except anyio.WouldBlock:
                pass
            else:
                self._running[key] = self.running(key) + 1
                return
        turn = anyio.Event()
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = deque()
            self._rotation.append(key)
        queue.append(turn)
        self._dispatch()
        try:
            await turn.wait()
        except BaseException:
            if turn.is_set():
                self._pass()
            else:
                self._leave(key, turn)
            raise
        try:
            await self._limiter.acquire_on_behalf_of(borrower)
        except BaseException:
            self._pass()
            raise
        self._running[key] = self.running(key) + 1
        self._pass()

    def release(self, key: Hashable | None, borrower: object) -> None:
        """Gives back the token `borrower` holds for caller `key`."""
        self._limiter.release_on_behalf_of(borrower)
        left = self.running(key) - 1
        if left > 0:
            self._running[key] = left
        else:
            self._running.pop(key, None)
        self._dispatch()

    def _under_cap(self, key: Hashable | None) -> bool:
        return self.per_caller is None or self.running(key) < self.per_caller

    def _pass(self) -> None:
        self._baton = False
        self._dispatch()

    def _leave(self, key: Hashable | None, turn: anyio.Event) -> None:
        queue = self._queues.get(key)
        if queue is None:
            return
        queue.remove(turn)
        if not queue:
            del self._queues[key]
            self._rotation.remove(key)

    def _dispatch(self) -> None:
        """Gives the turn to the next caller in rotation that is under its cap."""
        if self._baton:
            return
        for _ in range(len(self._rotation)):
            key = self._rotation.popleft()
            if not self._under_cap(key):
                self._rotation.append(key)
                continue
            queue = self._queues[key]
            turn = queue.popleft()
            if queue:
                self._rotation.append(key)
            else:
                del self._queues[key]
            self._baton = True
            turn.set()
            return
