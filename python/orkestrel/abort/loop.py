"""Thread-safe hand-off of a callback to the event loop that is running now."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from anyio import NoEventLoopError
from anyio.lowlevel import current_token

Callback = Callable[[], object]
Call = Callable[[Callback], None]


def _direct(fn: Callback) -> None:
    fn()


def loop_caller() -> Call:
    """Captures the running event loop and returns a function that runs callbacks on it.

    A callback handed over on the loop's own thread runs at once; from any other thread it is
    scheduled on the loop. With no event loop running, callbacks always run at once.
    """
    try:
        native = current_token().native_token
    except NoEventLoopError:
        return _direct
    owner = threading.get_ident()
    if isinstance(native, asyncio.AbstractEventLoop):
        loop = native

        def schedule(fn: Callback) -> None:
            loop.call_soon_threadsafe(fn)
    else:
        token: Any = native

        def schedule(fn: Callback) -> None:
            token.run_sync_soon(fn)

    def call(fn: Callback) -> None:
        if threading.get_ident() == owner:
            fn()
        else:
            schedule(fn)

    return call
