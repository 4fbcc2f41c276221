"""One unit of database work in flight: whether it has been asked to stop, and the watchdog
that interrupts its running statement until it does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from orkestrel.abort import AbortSignal
from orkestrel.database.errors import DatabaseError

INTERRUPT_INTERVAL = 0.02
"""Seconds between two interrupts of a statement that has not stopped yet."""


class Operation:
    """Tracks one unit of work: the caller's signal, an abort flag, and completion.

    An abort (from the signal or from the awaiting task being cancelled) starts a watchdog
    thread that calls `interrupt` every `INTERRUPT_INTERVAL` seconds until the work finishes.
    Repeating matters: an interrupt that lands between two statements is forgotten by the
    engine, and the next statement must still be stopped.
    """

    __slots__ = ("_lock", "_signal", "_watchdog", "aborted", "finished", "interrupt")

    def __init__(self, signal: AbortSignal | None, interrupt: Callable[[Operation], None]) -> None:
        self._signal = signal
        self._lock = threading.Lock()
        self._watchdog: threading.Thread | None = None
        self.aborted = False
        self.finished = threading.Event()
        self.interrupt = interrupt

    def attach(self) -> None:
        """Starts listening to the signal; an already aborted signal aborts at once."""
        if self._signal is not None:
            self._signal.add_listener(self.abort)
            if self._signal.aborted:
                self.abort()

    def detach(self) -> None:
        """Stops listening and marks the work finished, which ends the watchdog."""
        if self._signal is not None:
            self._signal.remove_listener(self.abort)
        self.finished.set()

    def abort(self) -> None:
        """Marks the work aborted and starts the interrupting watchdog once."""
        with self._lock:
            self.aborted = True
            if self._watchdog is not None or self.finished.is_set():
                return
            self._watchdog = threading.Thread(
                target=self._watch, name="orkestrel.database.interrupt", daemon=True
            )
        self._watchdog.start()

    def check(self) -> None:
        """Raises `DatabaseError` coded `ABORTED` once the work has been aborted."""
        if self.aborted:
            raise aborted_error()

    def _watch(self) -> None:
        while not self.finished.is_set():
            self.interrupt(self)
            if self.finished.wait(INTERRUPT_INTERVAL):
                return


def aborted_error() -> DatabaseError:
    """Builds the error an aborted call raises; its work was rolled back."""
    return DatabaseError("ABORTED", "the database call was aborted and rolled back")
