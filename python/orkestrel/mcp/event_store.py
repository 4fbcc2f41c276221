"""The bounded, in-memory store of the events a streamable HTTP session sent, kept so that a
client reconnecting with `Last-Event-ID` gets the events it missed."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orkestrel.mcp.constants import EVENT_BYTES, EVENT_TTL_SECONDS, EVENTS_PER_STREAM


@dataclass(frozen=True)
class StoredEvent:
    """One kept event: the stream it was sent on, its message (`None` for the empty priming
    event a stream opens with), its size in bytes of JSON and when it was kept."""

    stream: str
    message: Any
    size: int
    at: float


def check_bounds(per_stream: int, max_bytes: int, ttl: float) -> None:
    """Raises `ValueError` naming the first bound of an event store that is not one."""
    for option, value in (("per_stream", per_stream), ("max_bytes", max_bytes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{option} must be a positive integer, got {value!r}")
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not ttl > 0:
        raise ValueError(f"ttl must be a positive number of seconds, got {ttl!r}")


@dataclass(frozen=True)
class EventBounds:
    """The bounds of a store of events: `per_stream` events per stream, `max_bytes` bytes of
    JSON in all, and `ttl` seconds per event."""

    per_stream: int = EVENTS_PER_STREAM
    max_bytes: int = EVENT_BYTES
    ttl: float = EVENT_TTL_SECONDS

    def __post_init__(self) -> None:
        check_bounds(self.per_stream, self.max_bytes, self.ttl)


class EventStore:
    """Keeps the events of every session of one server, each session apart (an event id names
    an event of its own session only, and no two events share a number), within three bounds:
    `per_stream` events per stream, `max_bytes` bytes of JSON in all, and `ttl` seconds per
    event. Past a bound the oldest go first, and an id whose event is gone is one the store no
    longer knows."""

    durable = False

    def __init__(
        self,
        *,
        per_stream: int = EVENTS_PER_STREAM,
        max_bytes: int = EVENT_BYTES,
        ttl: float = EVENT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        check_bounds(per_stream, max_bytes, ttl)
        self.per_stream = per_stream
        self.max_bytes = max_bytes
        self.ttl = ttl
        self.clock = clock
        self.size = 0
        self.count = 0
        self._events: OrderedDict[tuple[str, int], StoredEvent] = OrderedDict()
        self._streams: dict[str, dict[str, deque[int]]] = {}

    def store(self, session: str, stream: str, message: Any, size: int) -> int:
        """Keeps `message` as the next event of `session`'s `stream`; gives its number."""
        self.count += 1
        number = self.count
        self._events[(session, number)] = StoredEvent(stream, message, size, self.clock())
        self.size += size
        kept = self._streams.setdefault(session, {}).setdefault(stream, deque())
        kept.append(number)
        if len(kept) > self.per_stream:
            self._drop(session, kept.popleft())
        self._expire()
        return number

    async def keep(self, session: str, stream: str, message: Any, size: int) -> int:
        """`store`, as the `EventStoreInterface` asks."""
        return self.store(session, stream, message, size)

    async def lookup(self, session: str, number: int) -> StoredEvent | None:
        """`find`, as the `EventStoreInterface` asks."""
        return self.find(session, number)

    async def following(self, session: str, number: int) -> list[tuple[int, StoredEvent]]:
        """`after`, as the `EventStoreInterface` asks."""
        return self.after(session, number)

    async def mark_resumed(self, session: str, number: int) -> None:
        """Nothing to record: only this server holds its sessions' events."""

    async def was_resumed(self, session: str, stream: str) -> bool:
        """`False`: no other server replays this one's events."""
        return False

    def find(self, session: str, number: int) -> StoredEvent | None:
        """The kept event `number` of `session`, or `None` when it is not (or no longer) kept."""
        self._expire()
        return self._events.get((session, number))

    def after(self, session: str, number: int) -> list[tuple[int, StoredEvent]]:
        """The kept events of the stream of `session`'s event `number` that came after it."""
        event = self.find(session, number)
        if event is None:
            return []
        kept = self._streams.get(session, {}).get(event.stream, deque())
        return [(later, self._events[(session, later)]) for later in kept if later > number]

    def forget(self, session: str) -> None:
        """Drops every event of `session` (it ended)."""
        for kept in self._streams.pop(session, {}).values():
            for number in kept:
                self._drop(session, number)

    def _drop(self, session: str, number: int) -> None:
        event = self._events.pop((session, number), None)
        if event is not None:
            self.size -= event.size

    def _expire(self) -> None:
        oldest = self.clock() - self.ttl
        while self._events:
            (session, number), event = next(iter(self._events.items()))
            if self.size <= self.max_bytes and event.at >= oldest:
                return
            self._drop(session, number)
            streams = self._streams.get(session, {})
            kept = streams.get(event.stream)
            # Kept in order, so the oldest event overall is the oldest of its stream.
            if kept and kept[0] == number:
                kept.popleft()
            if not kept:
                streams.pop(event.stream, None)
