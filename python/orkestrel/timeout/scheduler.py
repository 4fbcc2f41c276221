"""One-shot timers on whatever is running: asyncio, trio, or no event loop at all."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from anyio import NoEventLoopError
from anyio.lowlevel import current_token

from orkestrel.abort.loop import loop_caller

Cancel = Callable[[], None]


def schedule(delay: float, callback: Callable[[], None]) -> Cancel:
    """Runs `callback` once after `delay` seconds and returns a thread-safe cancel function.

    Inside an event loop the callback runs on the loop's thread; with no loop, on a daemon
    timer thread.
    """
    try:
        native = current_token().native_token
    except NoEventLoopError:
        timer = threading.Timer(delay, callback)
        timer.daemon = True
        timer.start()
        return timer.cancel
    call = loop_caller()
    if isinstance(native, asyncio.AbstractEventLoop):
        handle = native.call_later(delay, callback)
        return lambda: call(handle.cancel)
    return _schedule_trio(delay, callback, call)


def _schedule_trio(
    delay: float, callback: Callable[[], None], call: Callable[[Callable[[], object]], None]
) -> Cancel:
    # Deferred: trio is an optional dependency, loaded only under trio.
    import trio

    scope = trio.CancelScope()

    async def sleeper() -> None:
        with scope:
            await trio.sleep(delay)
            callback()

    trio.lowlevel.spawn_system_task(sleeper, name="orkestrel.timeout")
    return lambda: call(scope.cancel)
