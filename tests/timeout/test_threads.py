"""`Timeout` with no event loop: plain threads, including a blocking call in a worker thread."""

from __future__ import annotations

import threading
from typing import Any

import anyio
import pytest

from orkestrel.abort import AbortController
from orkestrel.timeout import Timeout


def test_expires_from_plain_synchronous_code() -> None:
    fired = threading.Event()
    timeout = Timeout(ms=5)
    timeout.signal.add_listener(fired.set)
    timeout.start()
    assert fired.wait(timeout=2)
    assert timeout.expired


def test_clear_in_plain_code_stops_the_timer_thread() -> None:
    fired = threading.Event()
    timeout = Timeout(ms=20)
    timeout.signal.add_listener(fired.set)
    timeout.start()
    timeout.clear()
    assert not fired.wait(timeout=0.1)
    assert not timeout.expired


def test_parent_abort_from_another_thread_clears() -> None:
    parent = AbortController()
    timeout = Timeout(ms=50, signal=parent.signal)
    timeout.start()
    worker = threading.Thread(target=parent.abort)
    worker.start()
    worker.join()
    threading.Event().wait(0.1)
    assert not timeout.expired


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_bounds_a_blocking_call_in_a_worker_thread() -> None:
    def blocking(stop: threading.Event) -> Any:
        timeout = Timeout(ms=10)
        timeout.signal.add_listener(stop.set)
        timeout.start()
        finished = stop.wait(timeout=5)
        return finished, timeout.expired, threading.get_ident()

    finished, expired, worker = await anyio.to_thread.run_sync(blocking, threading.Event())
    assert (finished, expired) == (True, True)
    assert worker != threading.get_ident()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_signal_wait_wakes_when_aborted_from_another_thread() -> None:
    controller = AbortController()
    threading.Timer(0.01, controller.abort, args=("late",)).start()
    with anyio.fail_after(2):
        await controller.signal.wait()
    assert controller.signal.reason == "late"
