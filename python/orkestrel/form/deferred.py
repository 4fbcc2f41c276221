"""A settle-once result any number of tasks may await, on asyncio or trio."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any, Generic, TypeVar

import anyio

from orkestrel.abort.loop import loop_caller

T = TypeVar("T")


class Deferred(Generic[T]):
    """Represents a value that arrives later and exactly once: awaited any number of times, from
    any task, on asyncio or trio, and settled from synchronous code or another thread.

    The first `resolve` or `reject` wins; later ones change nothing and answer `False`.
    """

    __slots__ = ("_done", "_error", "_lock", "_value", "_waiters")

    def __init__(self) -> None:
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._waiters: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def done(self) -> bool:
        """Determines whether the deferred has been settled, with a value or an error."""
        return self._done

    def failed(self) -> bool:
        """Determines whether the deferred was settled with an error."""
        return self._done and self._error is not None

    def resolve(self, value: T) -> bool:
        """Settles with `value` unless already settled; answers whether this call settled it."""
        return self._settle(value, None)

    def reject(self, error: BaseException) -> bool:
        """Settles with `error` unless already settled; answers whether this call settled it."""
        return self._settle(None, error)

    def result(self) -> T:
        """Returns the value, raises the error, or raises `RuntimeError` while unsettled."""
        if not self._done:
            raise RuntimeError("the deferred is not settled yet")
        if self._error is not None:
            raise self._error
        value: T = self._value
        return value

    async def wait(self) -> T:
        """Returns the value once settled (at once when it already is), or raises the error."""
        if not self._done:
            event = anyio.Event()
            call = loop_caller()

            def notify() -> None:
                call(event.set)

            with self._lock:
                pending = not self._done
                if pending:
                    self._waiters.append(notify)
            if pending:
                try:
                    await event.wait()
                finally:
                    with self._lock:
                        self._waiters = [item for item in self._waiters if item is not notify]
        return self.result()

    def __await__(self) -> Generator[Any, None, T]:
        return self.wait().__await__()

    def _settle(self, value: Any, error: BaseException | None) -> bool:
        with self._lock:
            if self._done:
                return False
            self._done, self._value, self._error = True, value, error
            waiters, self._waiters = self._waiters, []
        for notify in waiters:
            notify()
        return True

    def __repr__(self) -> str:
        if not self._done:
            return "<Deferred pending>"
        return f"<Deferred {'failed' if self._error is not None else 'resolved'}>"
