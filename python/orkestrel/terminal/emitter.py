"""`Emitter`: a small synchronous event hub whose listeners cannot break an emit."""

from __future__ import annotations

import logging
import threading
from typing import Any

from orkestrel.terminal.types import Listener

logger = logging.getLogger("orkestrel.terminal")


class Emitter:
    """Represents a synchronous event hub: `emit` runs an event's listeners in registration
    order, and a listener that raises is logged to the `orkestrel.terminal` logger without
    stopping the others or the emitter."""

    __slots__ = ("_listeners", "_lock")

    def __init__(self) -> None:
        self._listeners: dict[str, list[Listener]] = {}
        self._lock = threading.Lock()

    def on(self, event: str, listener: Listener) -> None:
        """Registers a listener for an event; the same listener registered twice runs twice."""
        with self._lock:
            self._listeners.setdefault(event, []).append(listener)

    def off(self, event: str, listener: Listener) -> None:
        """Removes one registration of a listener; removing one not registered does nothing."""
        with self._lock:
            listeners = self._listeners.get(event, [])
            for index, item in enumerate(listeners):
                if item is listener or item == listener:
                    del listeners[index]
                    break
            if not listeners:
                self._listeners.pop(event, None)

    def emit(self, event: str, *args: Any) -> None:
        """Runs every listener of an event with `args`, in registration order."""
        with self._lock:
            listeners = list(self._listeners.get(event, ()))
        for listener in listeners:
            try:
                listener(*args)
            except Exception:
                logger.exception("a %r listener raised", event)

    def count(self, event: str | None = None) -> int:
        """Counts the registered listeners of one event, or of every event."""
        with self._lock:
            if event is not None:
                return len(self._listeners.get(event, ()))
            return sum(len(items) for items in self._listeners.values())
