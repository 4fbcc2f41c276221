"""Cancelling a request whose HTTP client dropped the connection before its answer: the SDK
leaves such a call running until the session idles out, so the endpoint watches the
connection and, when it closes first, sends the session the `notifications/cancelled` the
client never sent. A client that was sent event ids may reconnect with `Last-Event-ID`
instead, so its call is cancelled only when no reconnection comes within a window."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from starlette.types import Message, Receive, Scope, Send

DROPPED_REASON = "the client's connection closed before the answer"
"""The `reason` of the cancellation sent for a request whose client went away."""

CANCEL_SECONDS = 5.0
"""How long the cancellation of a dropped request may take to hand over."""

_FORWARDED = (b"host", b"authorization", b"mcp-session-id", b"mcp-protocol-version")


def request_id(body: bytes) -> Any | None:
    """The id of the JSON-RPC request `body` holds, or `None` for a notification, a response,
    a batch or anything else."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    id = message.get("id")
    return id if isinstance(id, str | int) and not isinstance(id, bool) else None


async def handle_watched(
    manager: Any,
    scope: Scope,
    replay: list[Message],
    receive: Receive,
    send: Send,
    id: Any,
    reconnected: Callable[[], Awaitable[bool]] | None = None,
) -> None:
    """Hands the request of a session (its body already read, in `replay`) to the session
    manager, and cancels request `id` in that session when the connection closes before the
    answer ends, unless `reconnected` (awaited once it closed) tells that the client came
    back."""
    answered = False
    gone = anyio.Event()

    async def tracked(message: Message) -> None:
        nonlocal answered
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            answered = True
        await send(message)

    async def handed() -> Message:
        if replay:
            return replay.pop(0)
        await gone.wait()
        return {"type": "http.disconnect"}

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        gone.set()
        came = not answered and reconnected is not None and await reconnected()
        if not answered and not came:
            with anyio.move_on_after(CANCEL_SECONDS, shield=True):
                await _cancel(manager, scope, id)

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        await manager.handle_request(scope, handed, tracked)
        if not gone.is_set() or reconnected is None:
            # A cancellation under way is shielded, so the group still waits for it.
            group.cancel_scope.cancel()


async def _cancel(manager: Any, scope: Scope, id: Any) -> None:
    params = {"requestId": id, "reason": DROPPED_REASON}
    body = json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
    encoded = body.encode()
    headers = [(key, value) for key, value in scope["headers"] if key in _FORWARDED]
    headers += [
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"content-length", str(len(encoded)).encode()),
    ]
    pending = [{"type": "http.request", "body": encoded, "more_body": False}]

    async def receive() -> Message:
        return pending.pop() if pending else {"type": "http.disconnect"}

    async def discard(message: Message) -> None:
        return None

    await manager.handle_request({**scope, "headers": headers}, receive, discard)
