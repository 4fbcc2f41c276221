"""One HTTP session's view of the event store, handed to that session's SDK transport as its
event store: what it keeps and replays is its own session's only."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from orkestrel.mcp import sdk
from orkestrel.mcp.event_store import EventStore

MAX_EVENT_ID = 20
"""The longest `Last-Event-ID` looked up; a longer one names no event."""


class SessionEvents:
    """The SDK's `EventStore` interface over `store`, for the session `session`. Its event ids
    are decimal numbers counted over the whole store. A replay marks its stream resumed, which
    a call whose client dropped the connection waits for before it is cancelled."""

    def __init__(self, store: EventStore, session: str) -> None:
        self.store = store
        self.session = session
        self._resumed: dict[str, anyio.Event] = {}

    async def store_event(self, stream_id: str, message: Any) -> str:
        size = 0 if message is None else len(sdk.message_json(message))
        return str(self.store.store(self.session, str(stream_id), message, size))

    async def replay_events_after(
        self, last_event_id: str, send_callback: Callable[[Any], Awaitable[None]]
    ) -> str | None:
        number = self.number(last_event_id)
        event = None if number is None else self.store.find(self.session, number)
        if number is None or event is None:
            return None
        self.resumed(event.stream).set()
        for later, kept in self.store.after(self.session, number):
            if kept.message is not None:
                await send_callback(sdk.event_message(kept.message, str(later)))
        return event.stream

    def knows(self, event_id: str) -> bool:
        """Whether `event_id` names a kept event of this session."""
        number = self.number(event_id)
        return number is not None and self.store.find(self.session, number) is not None

    def resumed(self, stream: str) -> anyio.Event:
        """Set once a client reconnects to `stream` with one of its event ids."""
        return self._resumed.setdefault(stream, anyio.Event())

    def release(self, stream: str) -> None:
        """Forgets whether `stream` was resumed (its call is settled)."""
        self._resumed.pop(stream, None)

    @staticmethod
    def number(event_id: str) -> int | None:
        text = event_id.strip()
        if not text.isdecimal() or not text.isascii() or len(text) > MAX_EVENT_ID:
            return None
        return int(text)
