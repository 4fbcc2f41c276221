"""Replaying, on this server, a stream of a session another server holds (or held before it
stopped): the events it kept in the shared durable store, then each new one as it is kept,
until the stream's answer, the client leaving, or a quiet spell."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import anyio
from starlette.types import Receive, Send

from orkestrel.mcp.constants import EVENT_POLL_SECONDS
from orkestrel.mcp.durable_events import DurableEventStore

_HEADERS = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]


async def replay_elsewhere(
    store: DurableEventStore,
    key: str,
    session: str,
    number: int,
    receive: Receive,
    send: Send,
    quiet: float,
) -> bool:
    """Answers a reconnection to `session` from its event `number`, kept under `key` (the
    session's key for the reconnecting client: its owner and id), with the events of its
    stream kept after it, following the stream as the server that holds the session keeps
    more, until the stream's answer (a response to its request), the client's leaving, or
    `quiet` seconds without a new event. Records the reconnection, so that server lets the
    call run on. Tells whether the store knew the event (otherwise nothing is sent)."""
    event = await store.lookup(key, number)
    if event is None:
        return False
    await store.mark_resumed(key, number)
    headers = [*_HEADERS, (b"mcp-session-id", session.encode("latin-1"))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(watch)
        await _follow(store, key, event.stream, number, send, quiet)
        group.cancel_scope.cancel()
    with anyio.CancelScope(shield=True):
        with contextlib.suppress(OSError):  # the client already left
            await send({"type": "http.response.body", "body": b"", "more_body": False})
    return True


async def _follow(
    store: DurableEventStore, session: str, stream: str, last: int, send: Send, quiet: float
) -> None:
    since = anyio.current_time()
    while anyio.current_time() - since <= quiet:
        for number, event in await store.stream_after(session, stream, last):
            last, since = number, anyio.current_time()
            if event.message is None:
                continue
            data = json.dumps(event.message, ensure_ascii=False, separators=(",", ":"))
            body = f"event: message\nid: {number}\ndata: {data}\n\n".encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})
            if _answers(event.message):
                return
        await anyio.sleep(EVENT_POLL_SECONDS)


def _answers(message: Any) -> bool:
    """Whether `message` is a response (a result or an error), which ends its stream."""
    return (
        isinstance(message, dict)
        and "id" in message
        and ("result" in message or "error" in message)
    )
