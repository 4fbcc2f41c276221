"""The `Timeout` deadline handle."""

from __future__ import annotations

import logging
import threading
import uuid

from orkestrel.abort import AbortController, AbortSignal
from orkestrel.timeout.helpers import validate_timeout_options
from orkestrel.timeout.scheduler import Cancel, schedule

_log = logging.getLogger("orkestrel.timeout")


class Timeout:
    """Implements `TimeoutInterface` as a re-armable deadline whose `signal` aborts on expiry.

    It works under asyncio, under trio, and in plain threads with no event loop.
    """

    __slots__ = (
        "__weakref__",
        "_cancel",
        "_controller",
        "_generation",
        "_id",
        "_linked",
        "_listener",
        "_lock",
        "_ms",
        "_parent",
    )

    def __init__(
        self, *, ms: int | float, id: str | None = None, signal: AbortSignal | None = None
    ) -> None:
        options = validate_timeout_options({"id": id, "ms": ms, "signal": signal})
        self._id = options["id"] if "id" in options else str(uuid.uuid4())
        self._ms = options["ms"]
        self._parent = options.get("signal")
        self._controller = AbortController()
        self._cancel: Cancel | None = None
        self._generation = 0
        self._linked = False
        self._listener = self.clear
        self._lock = threading.RLock()

    @property
    def id(self) -> str:
        """The trace label: the given `id`, or a random UUID."""
        return self._id

    @property
    def ms(self) -> int | float:
        """The deadline in milliseconds."""
        return self._ms

    @property
    def signal(self) -> AbortSignal:
        """The signal that aborts when the current deadline expires."""
        return self._controller.signal

    @property
    def expired(self) -> bool:
        """Whether the current signal has aborted, derived from the signal itself."""
        return self._controller.signal.aborted

    def start(self) -> None:
        """Arms or re-arms the deadline for `ms`, installing a fresh `signal` when the current one
        has already aborted.
        """
        with self._lock:
            parent = self._parent
            if parent is not None and parent.aborted:
                return
            self._disarm()
            if self._controller.signal.aborted:
                self._controller = AbortController()
            if parent is not None:
                parent.add_listener(self._listener)
                self._linked = True
                if parent.aborted:
                    self._disarm()
                    return
            self._generation += 1
            generation = self._generation
            self._cancel = schedule(self._ms / 1000, lambda: self._fire(generation))

    def clear(self) -> None:
        """Cancels an armed deadline without aborting its `signal`, and resets expiry by installing
        a fresh signal when the current one has already aborted.
        """
        with self._lock:
            self._disarm()
            if self._controller.signal.aborted:
                self._controller = AbortController()

    def _disarm(self) -> None:
        self._generation += 1
        if self._cancel is not None:
            self._cancel()
            self._cancel = None
        if self._linked and self._parent is not None:
            self._parent.remove_listener(self._listener)
        self._linked = False

    def _fire(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._cancel is None:
                return
            self._cancel = None
            if self._linked and self._parent is not None:
                self._parent.remove_listener(self._listener)
            self._linked = False
            controller = self._controller
        try:
            controller.abort()
        except Exception:
            _log.exception("an abort listener of timeout %r raised", self._id)

    def __repr__(self) -> str:
        state = "expired" if self.expired else ("armed" if self._cancel else "idle")
        return f"<Timeout id={self._id!r} ms={self._ms!r} {state}>"
