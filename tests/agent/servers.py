"""Loopback servers that speak the OpenAI Chat Completions and Anthropic Messages wire formats.

A `Backend` is a real uvicorn server on a free loopback port, run in its own thread, so tests on
asyncio and on trio reach it over real HTTP. Tests queue `Reply` values; each request takes the
next one, and every request is recorded. The builders below write the providers' documented
shapes: whole JSON answers, server-sent event streams (tool-call arguments split across chunks,
usage on the last chunk, `[DONE]` / `message_stop`), and error bodies.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route


@dataclass
class Reply:
    """One scripted HTTP answer: a status, headers, and a whole body or streamed chunks.

    `stall` keeps a streamed answer open after its chunks until the client goes away; `delay`
    waits that many seconds between chunks.
    """

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: list[bytes] | None = None
    stall: bool = False
    delay: float = 0.0


@dataclass
class Received:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: Any


class Backend:
    """A uvicorn server on 127.0.0.1 that answers each POST with the next queued `Reply`, or,
    when `respond` is set, with what it makes of the request's body."""

    def __init__(self) -> None:
        self.respond: Callable[[Any], Reply] | None = None
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.disconnected = threading.Event()
        self.received = threading.Event()
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._answer, methods=["POST"]),
                Route("/v1/messages", self._answer, methods=["POST"]),
            ]
        )
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the loopback backend did not start")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        """The server's base URL, `http://127.0.0.1:<port>`."""
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def push(self, *replies: Reply) -> None:
        """Queues replies for the next requests, in order."""
        self.replies.extend(replies)

    def reset(self) -> None:
        """Forgets the responder, queued replies and recorded requests."""
        self.respond = None
        self.replies.clear()
        self.requests.clear()
        self.disconnected.clear()
        self.received.clear()

    async def wait(self, event: threading.Event) -> None:
        """Waits, off the event loop, until one of the server's events is set (30 s at most)."""
        if not await anyio.to_thread.run_sync(event.wait, 30):
            raise TimeoutError("the loopback backend never got there")

    def stop(self) -> None:
        """Stops the server and waits for its thread."""
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()

    async def _answer(self, request: Request) -> Response:
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.requests.append(Received(request.url.path, dict(request.headers), body))
        self.received.set()
        if self.respond is not None:
            self.replies.append(self.respond(body))
        if not self.replies:
            return Response(b'{"error": {"message": "no reply queued"}}', status_code=500)
        reply = self.replies.popleft()
        if reply.chunks is None:
            return Response(
                reply.body,
                status_code=reply.status,
                headers=reply.headers,
                media_type="application/json",
            )
        return StreamingResponse(
            self._stream(reply),
            status_code=reply.status,
            headers=reply.headers,
            media_type="text/event-stream",
        )

    async def _stream(self, reply: Reply) -> Any:
        try:
            for chunk in reply.chunks or []:
                if reply.delay:
                    await anyio.sleep(reply.delay)
                yield chunk
            if reply.stall:
                await anyio.sleep_forever()
        finally:
            self.disconnected.set()


def rechunk(chunks: Iterable[bytes], size: int) -> list[bytes]:
    """Cuts the concatenated chunks into pieces of `size` bytes, splitting lines, events and
    multi-byte characters wherever the cut falls."""
    data = b"".join(chunks)
    return [data[start : start + size] for start in range(0, len(data), size)]


def json_reply(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    """A whole JSON answer."""
    return Reply(status=status, headers=headers or {}, body=json.dumps(value).encode())


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event, `event:` line first when named."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {text}\n\n".encode()


# OpenAI Chat Completions ---------------------------------------------------------------------


def openai_error(status: int, message: str, kind: str, code: str | None = None) -> Reply:
    """An OpenAI error body, `{"error": {message, type, param, code}}`."""
    error = {"message": message, "type": kind, "param": None, "code": code}
    return json_reply({"error": error}, status)


def openai_call(id: str, name: str, arguments: Any) -> dict[str, Any]:
    """One `tool_calls` entry of a whole answer; `arguments` is sent as given when it is text."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": text}}


def openai_completion(
    content: str | None = None,
    calls: Sequence[dict[str, Any]] = (),
    *,
    usage: tuple[int, int] | None = (12, 5),
    role: str = "assistant",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A whole `chat.completion` object."""
    message: dict[str, Any] = {"role": role, "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = list(calls)
    message.update(extra or {})
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if calls else "stop",
            }
        ],
        "system_fingerprint": "fp_test",
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
    return body


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> bytes:
    return sse(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "gpt-test",
            "system_fingerprint": "fp_test",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": usage,
        }
    )


def openai_stream(
    pieces: Sequence[str] = (),
    calls: Sequence[tuple[str, str, str]] = (),
    *,
    usage: tuple[int, int] | None = (12, 5),
    split: int = 3,
    reasoning: Sequence[str] = (),
    done: bool = True,
) -> list[bytes]:
    """A streamed `chat.completion.chunk` sequence: a role chunk, reasoning and content pieces,
    each tool call's name then its argument text in pieces of `split` characters, a finish
    chunk, the usage chunk (empty `choices`) and `[DONE]`."""
    chunks = [_chunk({"role": "assistant", "content": "", "refusal": None})]
    chunks.extend(_chunk({"reasoning_content": text}) for text in reasoning)
    chunks.extend(_chunk({"content": piece}) for piece in pieces)
    for index, (id, name, arguments) in enumerate(calls):
        head = {"index": index, "id": id, "type": "function"}
        chunks.append(
            _chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
        )
        for start in range(0, len(arguments), split):
            part = arguments[start : start + split]
            chunks.append(
                _chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            )
    chunks.append(_chunk({}, "tool_calls" if calls else "stop"))
    if usage is not None:
        total = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        }
        chunks.append(
            sse(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "created": 1_700_000_000,
                    "model": "gpt-test",
                    "choices": [],
                    "usage": total,
                }
            )
        )
    if done:
        chunks.append(sse("[DONE]"))
    return chunks


def stream_reply(chunks: list[bytes], **options: Any) -> Reply:
    """A streamed answer."""
    return Reply(chunks=chunks, **options)


# Anthropic Messages --------------------------------------------------------------------------


def anthropic_error(status: int, kind: str, message: str) -> Reply:
    """An Anthropic error body, `{"type": "error", "error": {type, message}}`."""
    return json_reply({"type": "error", "error": {"type": kind, "message": message}}, status)


def anthropic_message(
    blocks: Sequence[dict[str, Any]],
    *,
    usage: tuple[int, int] = (20, 7),
    role: str = "assistant",
    stop: str | None = None,
) -> dict[str, Any]:
    """A whole `message` object."""
    tools = any(block.get("type") == "tool_use" for block in blocks)
    return {
        "id": "msg_test",
        "type": "message",
        "role": role,
        "model": "claude-test",
        "content": list(blocks),
        "stop_reason": stop or ("tool_use" if tools else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def anthropic_stream(
    blocks: Sequence[dict[str, Any]],
    *,
    usage: tuple[int, int] = (20, 7),
    split: int = 4,
    stop: bool = True,
) -> list[bytes]:
    """A streamed Messages answer: `message_start`, a `ping`, each block opened, filled with
    `text_delta` / `thinking_delta` / `input_json_delta` pieces of `split` characters and
    stopped, `message_delta` with the output usage, and `message_stop`."""
    message = anthropic_message([], usage=(usage[0], 1))
    message["stop_reason"] = None
    events = [
        sse({"type": "message_start", "message": message}, "message_start"),
        sse({"type": "ping"}, "ping"),
    ]
    for index, block in enumerate(blocks):
        kind = block["type"]
        if kind == "tool_use":
            start = {
                "type": "tool_use",
                "id": block.get("id"),
                "name": block.get("name"),
                "input": {},
            }
            text, delta_kind, key = block["json"], "input_json_delta", "partial_json"
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            text, delta_kind, key = block["thinking"], "thinking_delta", "thinking"
        else:
            start = {"type": "text", "text": ""}
            text, delta_kind, key = block["text"], "text_delta", "text"
        start = {k: v for k, v in start.items() if v is not None}
        events.append(
            sse(
                {"type": "content_block_start", "index": index, "content_block": start},
                "content_block_start",
            )
        )
        for begin in range(0, len(text), split):
            delta = {"type": delta_kind, key: text[begin : begin + split]}
            events.append(
                sse(
                    {"type": "content_block_delta", "index": index, "delta": delta},
                    "content_block_delta",
                )
            )
        if kind == "thinking":
            signature = {"type": "signature_delta", "signature": "c2lnbmF0dXJl"}
            events.append(
                sse(
                    {"type": "content_block_delta", "index": index, "delta": signature},
                    "content_block_delta",
                )
            )
        events.append(sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    tools = any(block["type"] == "tool_use" for block in blocks)
    events.append(
        sse(
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": "tool_use" if tools else "end_turn",
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": usage[1]},
            },
            "message_delta",
        )
    )
    if stop:
        events.append(sse({"type": "message_stop"}, "message_stop"))
    return events
