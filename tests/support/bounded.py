"""Running async work that might hang without hanging the test: on its own event loop in a
daemon thread, failed after a deadline; and the database watchdog threads still alive."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

WATCHDOG = "orkestrel.database.interrupt"


def bounded(work: Callable[[], Awaitable[Any]], seconds: float, backend: str) -> Any:
    """Runs `work` on its own event loop in a daemon thread; a run that has not ended after
    `seconds` fails the test instead of hanging it (a shielded wait cannot be cancelled)."""
    outcome: dict[str, Any] = {}

    def main() -> None:
        try:
            outcome["value"] = anyio.run(work, backend=backend)
        except BaseException as error:
            outcome["error"] = error

    runner = threading.Thread(target=main, daemon=True)
    runner.start()
    runner.join(seconds)
    assert not runner.is_alive(), f"the calls did not all return within {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def watchdogs_left() -> list[threading.Thread]:
    """The interrupting watchdogs still alive, after giving the finishing ones time to exit."""
    for thread in threading.enumerate():
        if thread.name == WATCHDOG:
            thread.join(5)
    return [thread for thread in threading.enumerate() if thread.name == WATCHDOG]
