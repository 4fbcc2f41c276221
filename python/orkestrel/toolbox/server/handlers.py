"""The GET (event stream) and POST (answer) handlers, as Starlette requests and responses."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from orkestrel.form import FieldError, is_form_values
from orkestrel.terminal import HEADER_TOKEN, TerminalManagerInterface, TimerHandler, json_text
from orkestrel.toolbox.server.connection import TerminalConnection
from orkestrel.toolbox.server.helpers import token_accepts
from orkestrel.toolbox.server.types import TerminalHandler, TerminalRouteContext, TerminalToken

STREAM_HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-accel-buffering": "no",
}


class TerminalStream(StreamingResponse):
    """The event stream of one connection: a `StreamingResponse` that writes the SSE frames
    itself, watches for the client's disconnect whatever the server's ASGI version, and tears
    the connection down however the response ends."""

    def __init__(self, connection: TerminalConnection) -> None:
        super().__init__(connection.frames(), headers=STREAM_HEADERS)
        self.connection = connection

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            self.connection.open()
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    with contextlib.suppress(OSError):
                        await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            self.connection.finish()


LONE_SURROGATE = (
    "The answer holds a lone surrogate (a \\ud800-\\udfff escape without its pair), "
    "which is not text; send valid Unicode"
)


def _encodable(value: object) -> bool:
    """Whether every string in a parsed JSON value encodes to UTF-8."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_encodable(key) and _encodable(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_encodable(item) for item in value)
    return True


def _empty(status: int) -> Response:
    return Response(status_code=status)


def _json(status: int, value: Any) -> Response:
    body = json_text(value).encode("utf-8")
    return Response(body, status_code=status, media_type="application/json")


def _is_json(media: str | None) -> bool:
    kind = (media or "").split(";", 1)[0].strip().lower()
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


def _name(manager: TerminalManagerInterface, context: TerminalRouteContext) -> str | None:
    name = context.get("params", {}).get("name")
    return name if isinstance(name, str) and manager.terminal(name) is not None else None


def stream_handler(
    manager: TerminalManagerInterface,
    *,
    token: TerminalToken | None,
    keepalive: int,
    timer: TimerHandler,
    buffer: int,
) -> TerminalHandler:
    """Builds the GET handler: `401` for a refused token, `404` for an unknown terminal, else
    the terminal's event stream, dropped when its consumer falls `buffer` bytes behind."""

    async def handle(request: Request, context: TerminalRouteContext) -> Response:
        presented = request.headers.get(HEADER_TOKEN)
        if not token_accepts(token, presented):
            return _empty(401)
        name = _name(manager, context)
        if name is None:
            return _empty(404)
        connection = TerminalConnection(
            manager,
            name,
            token=token,
            presented=presented,
            keepalive=keepalive,
            timer=timer,
            buffer=buffer,
        )
        return TerminalStream(connection)

    return handle


def answer_handler(
    manager: TerminalManagerInterface, *, token: TerminalToken | None, limit: int
) -> TerminalHandler:
    """Builds the POST handler: `401`, `404`, `415` for a body not sent as JSON (all before the
    body is read), `413` for a body past `limit` bytes (whatever `Content-Length` claims),
    `400` for a body that is not JSON, `422` for one that is not `{id, values}`, then the
    manager's answer result as JSON: `200` accepted, `404` `target`, `422` `unknown` or
    `rejected` (also for an answer holding a lone surrogate, which no JSON text can carry
    further: the form stays open)."""
    cap = max(1, limit)

    async def handle(request: Request, context: TerminalRouteContext) -> Response:
        if not token_accepts(token, request.headers.get(HEADER_TOKEN)):
            return _empty(401)
        name = _name(manager, context)
        if name is None:
            return _empty(404)
        if not _is_json(request.headers.get("content-type")):
            # A cross-site page can send a form or text/plain POST without asking; JSON it cannot.
            return _empty(415)
        chunks: list[bytes] = []
        size = 0
        async with contextlib.aclosing(request.stream()) as body_chunks:
            async for chunk in body_chunks:
                size += len(chunk)
                if size > cap:
                    return _empty(413)
                chunks.append(chunk)
        body = b"".join(chunks)
        if body and len(body) > limit:
            return _empty(413)
        try:
            payload = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):
            return _empty(400)
        if not isinstance(payload, dict):
            return _empty(422)
        id, values = payload.get("id"), payload.get("values")
        if not isinstance(id, str) or not id or not is_form_values(values):
            return _empty(422)
        faults: list[FieldError] = [
            {"field": field, "message": LONE_SURROGATE}
            for field, value in values.items()
            if not _encodable(field) or not _encodable(value)
        ]
        if faults:
            return _json(422, {"success": False, "error": {"reason": "rejected", "errors": faults}})
        result = manager.answer(name, id, values)
        if result["success"] is True:
            return _json(200, result)
        return _json(404 if result["error"]["reason"] == "target" else 422, result)

    return handle
