"""The stdio wire: the SDK's stdio transport over our own line reader, which answers every
request the SDK would drop without a word.

The SDK's reader validates each line and silently discards one it cannot use (a lone UTF-16
surrogate, `params` that is not an object, a wrong or missing `jsonrpc`, nesting deeper than
its parser allows), so the client waits for an answer that never comes. Our reader checks
each line the way the SDK will, and answers a line that carries a request id with a JSON-RPC
error instead of passing it on; a line that is not JSON, or whose id is unusable, is answered
with id null, as JSON-RPC says.
"""

from __future__ import annotations

import contextlib
import json
import json.decoder
import logging
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectSendStream

from orkestrel.mcp import sdk
from orkestrel.mcp.constants import MAX_LINE_BYTES

logger = logging.getLogger("orkestrel.mcp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STRUCTURAL = re.compile(r'["\[\]{}]')
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 (untyped in typeshed)


class LineWriter:
    """Writes whole lines to a binary stream, one writer at a time, so the SDK's answers and
    ours never interleave."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        """Writes `text` (one line and its newline) and flushes it."""
        data = text.encode("utf-8", "surrogatepass")
        async with self._lock:
            await anyio.to_thread.run_sync(self._write, data)

    def _write(self, data: bytes) -> None:
        self._stream.write(data)
        self._stream.flush()

    async def flush(self) -> None:
        """Lines are flushed as they are written."""


class FilteredLines:
    """The lines of a binary stream that the SDK will accept, as an async iterator of text;
    a line it would drop is answered on `writer` when it carries a request id, and skipped.
    Lines longer than `limit` bytes are cut off and answered the same way."""

    def __init__(self, stream: BinaryIO, writer: LineWriter, limit: int = MAX_LINE_BYTES) -> None:
        self._stream = stream
        self._writer = writer
        self._limit = limit

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        # A daemon thread reads the wire: a worker thread of the event loop would keep the
        # process alive while it blocks on a read after serving has stopped.
        send, receive = anyio.create_memory_object_stream[tuple[bytes, bool]](1)
        token = anyio.lowlevel.current_token()
        threading.Thread(target=self._pump, args=(send, token), daemon=True).start()
        async with receive:
            async for raw, whole in receive:
                text = raw.decode("utf-8", "replace")
                if not text.strip():
                    continue
                if not whole:
                    await self._refuse(
                        text, PARSE_ERROR, f"message longer than {self._limit} bytes"
                    )
                    continue
                try:
                    sdk.parse_message(text)
                except Exception as error:
                    code, reason = diagnose(text, error)
                    await self._refuse(text, code, reason)
                    continue
                yield text

    def _pump(self, send: MemoryObjectSendStream[tuple[bytes, bool]], token: Any) -> None:
        try:
            while True:
                raw, whole = self._read_line()
                if not raw:
                    return
                anyio.from_thread.run(send.send, (raw, whole), token=token)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, RuntimeError, OSError):
            return  # serving stopped, or the wire broke
        finally:
            with contextlib.suppress(RuntimeError):
                anyio.from_thread.run_sync(send.close, token=token)

    def _read_line(self) -> tuple[bytes, bool]:
        line = self._stream.readline(self._limit + 1)
        if len(line) <= self._limit or line.endswith(b"\n"):
            return line, True
        while True:  # drop the rest of an over-long line, keeping its head for the id
            rest = self._stream.readline(1 << 20)
            if not rest or rest.endswith(b"\n"):
                return line[: 1 << 16], False

    async def _refuse(self, text: str, code: int, reason: str) -> None:
        ident = request_id(text)
        if ident is None and code != PARSE_ERROR and not _names_an_id(text):
            logger.warning("dropped a message without a request id: %s", reason)
            return
        answer = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": reason}}
        await self._writer.write(json.dumps(answer, ensure_ascii=False) + "\n")


def diagnose(text: str, error: Exception) -> tuple[int, str]:
    """Names what is wrong with a line the SDK refused: its JSON-RPC error code and a one-line
    reason."""
    try:
        message = json.loads(text)
    except RecursionError:
        return PARSE_ERROR, "parse error: the message nests deeper than the parser allows"
    except ValueError as failure:
        return PARSE_ERROR, f"parse error: {failure}"
    if not isinstance(message, dict):
        return INVALID_REQUEST, "invalid request: a message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"'
    if "params" in message and not isinstance(message["params"], dict):
        return INVALID_REQUEST, "invalid request: params must be an object"
    if not isinstance(message.get("method"), str):
        return INVALID_REQUEST, "invalid request: method must be a string"
    try:
        json.dumps(message, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return INVALID_REQUEST, "invalid request: a string holds a lone UTF-16 surrogate"
    except RecursionError:
        return INVALID_REQUEST, "invalid request: the message nests deeper than allowed"
    first = str(error).strip().splitlines()
    detail = first[0] if first else type(error).__name__
    if "recursion" in str(error).lower():
        return INVALID_REQUEST, "invalid request: the message nests deeper than allowed"
    return INVALID_REQUEST, f"invalid request: {detail}"


def request_id(text: str) -> str | int | None:
    """The `id` of a top-level JSON object that looks like a request (it has a `method`, or no
    `result`/`error`), read without recursion however deep the rest nests; `None` when there
    is none, or when it is not a string or an integer."""
    try:
        keys = _top_level(text)
    except (ValueError, IndexError):
        return None
    if "id" not in keys or ("method" not in keys and ("result" in keys or "error" in keys)):
        return None
    ident = keys["id"]
    if isinstance(ident, bool) or not isinstance(ident, str | int):
        return None
    return ident


def _names_an_id(text: str) -> bool:
    """Whether a line that parses is a request whose id cannot be used (not a string or an
    integer): JSON-RPC answers it with id null, where a line without an id is a notification
    and gets no answer."""
    try:
        keys = _top_level(text)
    except (ValueError, IndexError):
        return False
    return "id" in keys and ("method" in keys or not ("result" in keys or "error" in keys))


def _top_level(text: str) -> dict[str, Any]:
    decoder = json.JSONDecoder()
    at = _WHITESPACE.match(text, 0).end()  # type: ignore[union-attr]
    if text[at] != "{":
        raise ValueError("not an object")
    at += 1
    found: dict[str, Any] = {}
    while True:
        at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at] == "}":
            return found
        if text[at] != '"':
            raise ValueError("expected a key")
        key, at = _scanstring(text, at + 1)
        at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at] != ":":
            raise ValueError("expected ':'")
        at = _WHITESPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        if text[at] in "[{":
            at = _skip_container(text, at)
            found[key] = ...
        else:
            found[key], at = decoder.raw_decode(text, at)
        at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at] == ",":
            at += 1
        elif text[at] != "}":
            raise ValueError("expected ',' or '}'")


def _skip_container(text: str, at: int) -> int:
    depth = 0
    while True:
        hit = _STRUCTURAL.search(text, at)
        if hit is None:
            raise ValueError("unterminated value")
        char, at = hit.group(), hit.end()
        if char == '"':
            _, at = _scanstring(text, at)
        elif char in "[{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return at


@contextmanager
def claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """Takes the process's stdin and stdout for the protocol: yields private duplicates of
    both, while fd 0 reads the null device and fd 1 writes to stderr, so a handler's stray
    `print` or `input()` never touches the wire. Restores both on exit."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    # A worker thread may still be blocked reading the wire when serving stops, holding the
    # reader's lock, so it is not closed here: the blocked read keeps it alive, and it is
    # released once that read returns. Its descriptor is left to the process.
    reader = os.fdopen(wire_in, "rb", buffering=1 << 16, closefd=False)
    writer = os.fdopen(wire_out, "wb", buffering=1 << 16)
    try:
        yield reader, writer
    finally:
        sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        writer.close()
