"""Runs one statement of a sync psycopg connection on the event loop, without a worker thread.

psycopg builds `Cursor.execute` as a generator that does only non-blocking libpq calls and
yields whenever the socket must be waited for; its own sync and async connections differ only
in how they wait. Here anyio waits, so the same code serves asyncio and trio; a server that
answers within the `inline` budget is first waited for on the loop's own thread, as a sync
connection waits, which costs a fraction of handing the wait to the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import select
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any

import anyio
import sniffio

# `Cursor._execute_gen` is private: it is driven only on the psycopg lines it was read and
# tested on (the same generator from 3.2.0 to 3.3.9); any other runs every statement in a
# worker thread, as before.
DRIVABLE_LINES = frozenset({(3, 2), (3, 3)})


@functools.cache
def loop_drivable() -> bool:
    """Whether psycopg is installed, on a line in `DRIVABLE_LINES`, and exposes the execute
    generator the loop needs."""
    try:
        # Deferred: psycopg is an optional dependency (the `postgres` extra).
        import psycopg
    except ImportError:
        return False
    return line_of(psycopg.__version__) in DRIVABLE_LINES and callable(
        getattr(psycopg.Cursor, "_execute_gen", None)
    )


def line_of(version: str) -> tuple[int, int] | None:
    """`(major, minor)` of a version string such as `3.3.9` or `3.4.0.dev1`; None if unreadable."""
    parts = version.split(".")
    if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return int(parts[0]), int(parts[1])


async def execute_on_loop(
    cursor: Any,
    sql: str,
    params: Sequence[Any],
    abort: Callable[[], None],
    inline: float = 0.0,
) -> None:
    """Runs `cursor.execute(sql, params)` awaiting the socket instead of blocking on it.

    For the first `inline` seconds the answer is waited for on this thread, without the loop
    (no cancellation arrives then); a later wait is the loop's. A cancelled caller first calls
    `abort` (which has the server cancel the statement), then waits, shielded, for the
    statement to end, so the connection is idle again before the cancellation goes on.
    """
    # Deferred: psycopg is an optional dependency (the `postgres` extra).
    import psycopg
    from psycopg.waiting import Ready, Wait

    fileno = cursor.connection.pgconn.socket
    steps: Generator[Any, Any, None] = cursor._execute_gen(sql, params)
    deadline = time.monotonic() + inline if inline > 0.0 and HAS_POLL else None
    try:
        state = next(steps)
        while True:
            if deadline is not None and state == Wait.R:
                if _readable_within(fileno, deadline - time.monotonic()):
                    state = steps.send(Ready.R)
                    continue
                deadline = None
            try:
                ready = await _ready(fileno, state)
            except anyio.get_cancelled_exc_class():
                with anyio.CancelScope(shield=True):
                    abort()
                    with contextlib.suppress(Exception):
                        await _finish(steps, fileno, state)
                raise
            state = steps.send(ready)
    except StopIteration:
        return
    except OSError as error:
        raise psycopg.OperationalError("connection socket closed") from error


HAS_POLL = hasattr(select, "poll")
"""Whether this platform has `select.poll`, which the inline wait needs (`select.select` is
limited to descriptors under 1024)."""


def _readable_within(fileno: int, seconds: float) -> bool:
    """Whether the socket has something to read (or failed) within `seconds`, waited for on
    this thread: at most a millisecond past them, `poll`'s unit."""
    if seconds <= 0.0:
        return False
    poller = select.poll()
    poller.register(fileno, select.POLLIN)
    return bool(poller.poll(min(math.ceil(seconds * 1000), _MOST_MS)))


_MOST_MS = 2**31 - 1
"""The longest wait `poll` takes (a C int of milliseconds)."""


async def _finish(steps: Generator[Any, Any, None], fileno: int, state: Any) -> None:
    with contextlib.suppress(StopIteration):
        while True:
            state = steps.send(await _ready(fileno, state))


async def _ready(fileno: int, state: Any) -> Any:
    """Waits until the socket can do what `state` (a psycopg `Wait`) asks; its `Ready`."""
    from psycopg.waiting import Ready, Wait

    if state == Wait.R:
        if sniffio.current_async_library() == "asyncio":
            await _asyncio_readable(fileno)
        else:
            await anyio.wait_readable(fileno)
        return Ready.R
    if state == Wait.W:
        await anyio.wait_writable(fileno)
        return Ready.W
    # Read-or-write: only while a large statement is still being sent.
    ready = Ready.NONE
    async with anyio.create_task_group() as group:

        async def wait(waiter: Callable[[int], Any], flag: Any) -> None:
            nonlocal ready
            await waiter(fileno)
            ready |= flag
            group.cancel_scope.cancel()

        group.start_soon(wait, anyio.wait_readable, Ready.R)
        group.start_soon(wait, anyio.wait_writable, Ready.W)
    return ready


async def _asyncio_readable(fileno: int) -> None:
    """`anyio.wait_readable` on asyncio, at a third of the cost: one future, no event."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not future.done():
            future.set_result(None)

    loop.add_reader(fileno, wake)
    try:
        await future
    finally:
        loop.remove_reader(fileno)
