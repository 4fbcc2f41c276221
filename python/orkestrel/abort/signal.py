"""The abort signal: a one-shot notification that work should stop."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio

from orkestrel.abort.loop import loop_caller

AbortListener = Callable[[], object]
"""A callback an `AbortSignal` runs, with no arguments, when it aborts."""


class AbortSignal:
    """Reports whether an operation has been asked to stop, and notifies listeners once when it is.

    A signal starts live and is aborted at most once, by the `AbortController` that owns it.
    """

    __slots__ = ("__weakref__", "_aborted", "_listeners", "_lock", "_reason")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: object = None
        self._listeners: list[AbortListener] = []
        self._lock = threading.Lock()

    @property
    def aborted(self) -> bool:
        """Whether the signal has been aborted."""
        return self._aborted

    @property
    def reason(self) -> object:
        """The reason given to `abort`, or `None` while the signal is live."""
        return self._reason

    def add_listener(self, listener: AbortListener) -> None:
        """Registers a callback run once, synchronously, when the signal aborts.

        Like a DOM abort event, a listener added after the abort is never called.
        Adding the same callable twice registers it once.
        """
        with self._lock:
            if not self._aborted and not any(item is listener for item in self._listeners):
                self._listeners.append(listener)

    def remove_listener(self, listener: AbortListener) -> None:
        """Unregisters a callback; removing one that is not registered does nothing."""
        with self._lock:
            self._listeners = [item for item in self._listeners if item is not listener]

    def throw_if_aborted(self) -> None:
        """Raises `AbortError` carrying the reason when the signal has aborted."""
        if self._aborted:
            raise AbortError(self._reason)

    async def wait(self) -> None:
        """Returns once the signal has aborted, immediately when it already has."""
        if self._aborted:
            return
        event = anyio.Event()
        call = loop_caller()

        def notify() -> None:
            call(event.set)

        self.add_listener(notify)
        try:
            if self._aborted:
                return
            await event.wait()
        finally:
            self.remove_listener(notify)

    @contextmanager
    def scope(self) -> Iterator[anyio.CancelScope]:
        """Runs the enclosed block in a cancel scope that is cancelled when the signal aborts.

        Leaving the block because of the abort is silent: check `aborted` afterwards to tell a
        finished block from a cancelled one.
        """
        with anyio.CancelScope() as scope:
            if self._aborted:
                scope.cancel()
                yield scope
                return
            call = loop_caller()

            def cancel() -> None:
                call(scope.cancel)

            self.add_listener(cancel)
            try:
                yield scope
            finally:
                self.remove_listener(cancel)

    def _abort(self, reason: object) -> None:
        with self._lock:
            if self._aborted:
                return
            self._aborted = True
            self._reason = reason
            listeners, self._listeners = self._listeners, []
        failures: list[BaseException] = []
        for listener in listeners:
            try:
                listener()
            except Exception as exc:
                failures.append(exc)
        if failures:
            first = failures[0]
            for other in failures[1:]:
                first.add_note(f"another abort listener also raised: {other!r}")
            raise first

    def __repr__(self) -> str:
        state = f"aborted, reason={self._reason!r}" if self._aborted else "live"
        return f"<AbortSignal {state}>"


class AbortError(Exception):
    """Raised by `AbortSignal.throw_if_aborted`; `reason` is the signal's abort reason."""

    def __init__(self, reason: object = None) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        if self.reason is None:
            return "the operation was aborted"
        try:
            return f"the operation was aborted: {self.reason}"
        except Exception:
            return "the operation was aborted"


def is_abort_signal(value: Any) -> bool:
    """Determines whether a value is a genuine `AbortSignal`, never trusting a look-alike.

    The check reads the value's real type, so an object that fakes `aborted` or overrides
    `__class__` is refused.
    """
    return issubclass(type(value), AbortSignal)
