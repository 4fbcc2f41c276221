"""One HTTP session's view of the event store, handed to that session's SDK transport as its
event store: what it keeps and replays is its own session's only."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from orkestrel.mcp import sdk
from orkestrel.mcp.constants import EVENT_POLL_SECONDS
from orkestrel.mcp.types import EventStoreInterface

MAX_EVENT_ID = 20
"""The longest `Last-Event-ID` looked up; a longer one names no event."""


class SessionEvents:
    """The SDK's `EventStore` interface over `store`, for the session `session`. Its event ids
    are decimal numbers, unique over the whole store. A replay marks its stream resumed, which
    a call whose client dropped the connection waits for before it is cancelled; with a
    durable store, a replay by another server on the same database counts too."""

    def __init__(self, store: EventStoreInterface, session: str) -> None:
        self.store = store
        self.session = session
        self._resumed: dict[str, anyio.Event] = {}

    async def store_event(self, stream_id: str, message: Any) -> str:
        text = None if message is None else sdk.message_json(message)
        kept = json.loads(text) if self.store.durable and text is not None else message
        size = 0 if text is None else len(text)
        return str(await self.store.keep(self.session, str(stream_id), kept, size))

    async def replay_events_after(
        self, last_event_id: str, send_callback: Callable[[Any], Awaitable[None]]
    ) -> str | None:
        number = self.number(last_event_id)
        event = None if number is None else await self.store.lookup(self.session, number)
        if number is None or event is None:
            return None
        self.resumed(event.stream).set()
        for later, kept in await self.store.following(self.session, number):
            if kept.message is not None:
                message = (
                    sdk.message_from_wire(kept.message) if self.store.durable else kept.message
                )
                await send_callback(sdk.event_message(message, str(later)))
        return event.stream

    async def knows(self, event_id: str) -> bool:
        """Whether `event_id` names a kept event of this session."""
        number = self.number(event_id)
        return number is not None and await self.store.lookup(self.session, number) is not None

    def resumed(self, stream: str) -> anyio.Event:
        """Set once a client reconnects to `stream` with one of its event ids, here."""
        return self._resumed.setdefault(stream, anyio.Event())

    async def reconnected(self, stream: str, window: float) -> bool:
        """Waits up to `window` seconds for a client to reconnect to `stream`, here or (with a
        durable store) on another server; tells whether one did."""
        here = self.resumed(stream)
        with anyio.move_on_after(window):
            while not here.is_set():
                if await self.store.was_resumed(self.session, stream):
                    return True
                if not self.store.durable:
                    await here.wait()
                    break
                with anyio.move_on_after(EVENT_POLL_SECONDS):
                    await here.wait()
        return here.is_set()

    def release(self, stream: str) -> None:
        """Forgets whether `stream` was resumed (its call is settled)."""
        self._resumed.pop(stream, None)

    @staticmethod
    def number(event_id: str) -> int | None:
        text = event_id.strip()
        if not text.isdecimal() or not text.isascii() or len(text) > MAX_EVENT_ID:
            return None
        return int(text)
