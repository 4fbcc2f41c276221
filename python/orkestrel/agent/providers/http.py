"""What the HTTP providers share: one request with bounded 429 retries, error mapping, capped
reads, an SSE decoder, and the stream skeleton that keeps partial text on abort."""

from __future__ import annotations

import codecs
import contextlib
import email.utils
import json
import math
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any, NamedTuple, cast

import anyio
import httpx

from orkestrel.abort import AbortSignal
from orkestrel.agent.errors import ProviderAbortError, ProviderError, ProviderErrorCode
from orkestrel.agent.helpers import finished
from orkestrel.agent.types import ProviderDelta, ProviderResult

ERROR_BODY_LIMIT = 65_536
"""The most bytes read from an error response to explain it."""

ERROR_TEXT_LIMIT = 200
"""The most characters of a backend's error text an error message quotes."""

REDACTED = "[redacted]"


def redact(text: str, secret: str | None) -> str:
    """Removes every occurrence of the API key from a text."""
    return text.replace(secret, REDACTED) if secret else text


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_json(data: bytes | str, what: str) -> Any:
    """Parses JSON strictly (no NaN or infinities), or raises `ProviderError` (`PROTOCOL`)."""
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ProviderError("PROTOCOL", f"{what} is not valid JSON") from None


def dump_json(value: Any) -> bytes:
    """Encodes a request body as compact UTF-8 JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def retry_after(headers: httpx.Headers) -> float | None:
    """Reads how long a backend asks to wait, from `retry-after-ms` or `retry-after` (seconds or
    an HTTP date), or `None`."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis)
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value / 1000
    text = headers.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return value if math.isfinite(value) and value >= 0 else None


def _code_of(status: int) -> ProviderErrorCode:
    if status == 401:
        return "AUTHENTICATION"
    if status == 429:
        return "RATE_LIMIT"
    if status >= 500:
        return "SERVER"
    return "HTTP"


def _explain(data: bytes) -> tuple[str, str | None]:
    """The backend's own error message and type from an error body, or the body's start."""
    text = data.decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        kind = error.get("type")
        return error["message"], kind if isinstance(kind, str) else None
    if isinstance(error, str):
        return error, None
    return " ".join(text.split()), None


def http_error(status: int, data: bytes, secret: str | None) -> ProviderError:
    """Maps an HTTP error response to a `ProviderError`: 401 `AUTHENTICATION`, 429
    `RATE_LIMIT`, 5xx `SERVER`, any other status `HTTP`."""
    message, kind = _explain(data)
    quoted = redact(message, secret)[:ERROR_TEXT_LIMIT]
    context: dict[str, Any] = {"status": status}
    if kind is not None:
        context["type"] = redact(kind, secret)[:ERROR_TEXT_LIMIT]
    return ProviderError(_code_of(status), f"provider returned {status}: {quoted}", context)


def stream_error(error: Any, secret: str | None) -> ProviderError:
    """Maps an error a backend sent inside a stream (`{type, message}`) to a `ProviderError`."""
    kind = error.get("type") if isinstance(error, Mapping) else None
    message = error.get("message") if isinstance(error, Mapping) else None
    text = redact(message if isinstance(message, str) else "unknown error", secret)
    codes: dict[str, ProviderErrorCode] = {
        "authentication_error": "AUTHENTICATION",
        "rate_limit_error": "RATE_LIMIT",
        "overloaded_error": "SERVER",
        "api_error": "SERVER",
        "server_error": "SERVER",
    }
    code = codes.get(kind, "SERVER") if isinstance(kind, str) else "SERVER"
    context = {"type": redact(kind, secret)[:ERROR_TEXT_LIMIT]} if isinstance(kind, str) else None
    return ProviderError(code, f"provider stream failed: {text[:ERROR_TEXT_LIMIT]}", context)


def _body(response: httpx.Response) -> AsyncGenerator[bytes, None]:
    # httpx declares an iterator; it is an async generator, and closing it matters on trio.
    return cast(AsyncGenerator[bytes, None], response.aiter_bytes())


async def read_capped(response: httpx.Response, limit: int) -> bytes:
    """Reads a whole response body, or raises `PROTOCOL` once it passes `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    async with contextlib.aclosing(_body(response)) as body:
        async for chunk in body:
            size += len(chunk)
            if size > limit:
                raise ProviderError(
                    "PROTOCOL", f"response body exceeds {limit} bytes", {"limit": limit}
                )
            chunks.append(chunk)
    return b"".join(chunks)


async def close(response: httpx.Response | None, body: Any = None) -> None:
    """Closes a response, and the iterator reading its body, even inside a cancelled scope."""
    with anyio.CancelScope(shield=True):
        if body is not None:
            await body.aclose()
        if response is not None:
            await response.aclose()


class Backend:
    """One HTTP endpoint of a provider: the client, the headers, the retry and size bounds."""

    __slots__ = (
        "_client",
        "_headers",
        "_owned",
        "_secret",
        "_timeout",
        "deadline",
        "limit",
        "retries",
        "url",
        "wait",
    )

    def __init__(
        self,
        *,
        url: str,
        headers: Mapping[str, str],
        client: httpx.AsyncClient | None,
        secret: str | None,
        retries: int,
        wait: float,
        limit: int,
        timeout: float,
        deadline: float,
    ) -> None:
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be a non-negative integer, got {retries!r}")
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not wait >= 0:
            raise ValueError(f"wait must be a non-negative number of seconds, got {wait!r}")
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be a positive number of bytes, got {limit!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if isinstance(deadline, bool) or not isinstance(deadline, int | float) or not deadline > 0:
            raise ValueError(f"deadline must be a positive number of seconds, got {deadline!r}")
        self.url = url
        self._headers = dict(headers)
        self._client = client
        self._owned = client is None
        self._secret = secret
        self.retries = retries
        self.wait = float(wait)
        self.limit = limit
        self._timeout = float(timeout)
        self.deadline = float(deadline)

    @property
    def secret(self) -> str | None:
        """The API key, for redaction."""
        return self._secret

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self._timeout, connect=10.0))
        return self._client

    async def open(self, body: Mapping[str, Any]) -> httpx.Response:
        """Posts the body and returns the open 2xx response, retrying a 429 up to `retries`
        times after the wait the backend asks for (when it is at most `wait` seconds).

        Raises `ProviderError`: `NETWORK` for a transport failure, or the mapped HTTP error.
        """
        content = dump_json(body)
        attempt = 0
        while True:
            request = self._http().build_request(
                "POST", self.url, content=content, headers=self._headers
            )
            try:
                response = await self._http().send(request, stream=True)
            except httpx.HTTPError as error:
                text = redact(f"{type(error).__name__}: {error}", self._secret)
                raise ProviderError(
                    "NETWORK", f"request to {request.url.host} failed: {text}"[:300]
                ) from None
            if response.status_code < 400:
                return response
            try:
                data = await read_capped(response, ERROR_BODY_LIMIT)
            except ProviderError:
                data = b""
            except httpx.HTTPError:
                data = b""
            finally:
                await close(response)
            failure = http_error(response.status_code, data, self._secret)
            if response.status_code == 429:
                delay = retry_after(response.headers)
                failure.context = {**(failure.context or {}), "attempts": attempt + 1}
                if delay is not None:
                    failure.context["retry"] = delay
                if attempt < self.retries:
                    pause = min(2.0**attempt, self.wait) if delay is None else delay
                    if pause <= self.wait:
                        attempt += 1
                        await anyio.sleep(pause)
                        continue
            raise failure

    def overdue(self) -> ProviderError:
        """The failure of a request that outlasted `deadline`."""
        return ProviderError(
            "DEADLINE",
            f"provider request exceeded its total deadline of {self.deadline:g} s (deadline)",
            {"deadline": self.deadline},
        )

    async def json(self, body: Mapping[str, Any]) -> Any:
        """Posts the body and parses the whole JSON answer, capped at `limit` bytes and
        `deadline` seconds."""
        with anyio.move_on_after(self.deadline):
            return await self._json(body)
        raise self.overdue()

    async def _json(self, body: Mapping[str, Any]) -> Any:
        response = await self.open(body)
        try:
            data = await read_capped(response, self.limit)
        except httpx.HTTPError as error:
            text = redact(f"{type(error).__name__}: {error}", self._secret)
            raise ProviderError("NETWORK", f"reading the response failed: {text}"[:300]) from None
        finally:
            await close(response)
        return load_json(data, "the response body")

    async def aclose(self) -> None:
        """Closes the HTTP client when the backend created it."""
        if self._owned and self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


class Event(NamedTuple):
    """One server-sent event: its name (`message` unless named) and its data lines joined."""

    name: str
    data: str


class SSEDecoder:
    """Turns the bytes of a `text/event-stream` into events, however the bytes are cut."""

    __slots__ = ("_buffer", "_data", "_decoder", "_name", "_started")

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._buffer = ""
        self._data: list[str] = []
        self._name = ""
        self._started = False

    def feed(self, chunk: bytes) -> list[Event]:
        """Takes the next bytes and returns the events they complete."""
        try:
            text = self._decoder.decode(chunk)
        except UnicodeDecodeError:
            raise ProviderError("PROTOCOL", "the event stream is not UTF-8") from None
        return self._lines(text, final=False)

    def close(self) -> list[Event]:
        """Ends the stream and returns any event still pending."""
        try:
            text = self._decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise ProviderError("PROTOCOL", "the event stream is not UTF-8") from None
        events = self._lines(text, final=True)
        if self._buffer:
            self._line(self._buffer, events)
            self._buffer = ""
        self._dispatch(events)
        return events

    def _lines(self, text: str, *, final: bool) -> list[Event]:
        buffer = self._buffer + text
        if not self._started and buffer:
            self._started = True
            buffer = buffer.removeprefix("\ufeff")
        events: list[Event] = []
        start = 0
        length = len(buffer)
        while True:
            ends = [
                index
                for index in (buffer.find("\n", start), buffer.find("\r", start))
                if index >= 0
            ]
            if not ends:
                break
            end = min(ends)
            if buffer[end] == "\r":
                if end + 1 >= length and not final:
                    break
                step = 2 if end + 1 < length and buffer[end + 1] == "\n" else 1
            else:
                step = 1
            self._line(buffer[start:end], events)
            start = end + step
        self._buffer = buffer[start:]
        return events

    def _line(self, line: str, events: list[Event]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line.startswith(":"):
            return
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._name = value

    def _dispatch(self, events: list[Event]) -> None:
        if self._data:
            events.append(Event(self._name or "message", "\n".join(self._data)))
        self._data = []
        self._name = ""


class EventStream:
    """The skeleton of a streaming provider turn: it opens the request on first use, reads the
    body as server-sent events, bounded by the backend's `limit`, and hands each event to
    `handle`; `finish` builds the result and `partial` what had arrived when the signal stopped
    the stream, raised as `ProviderAbortError`.
    """

    def __init__(self, backend: Backend, body: Mapping[str, Any], signal: AbortSignal) -> None:
        self._backend = backend
        self._body = body
        self._signal = signal
        self._response: httpx.Response | None = None
        self._bytes: AsyncGenerator[bytes, None] | None = None
        self._decoder = SSEDecoder()
        self._pending: deque[ProviderDelta] = deque()
        self._size = 0
        self._expires: float | None = None
        self._ended = False
        self._result: ProviderResult | None = None

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> ProviderDelta:
        while True:
            if self._pending:
                return self._pending.popleft()
            if self._result is not None:
                raise StopAsyncIteration
            if self._signal.aborted:
                await self._stop()
            try:
                with self._signal.scope():
                    await self._advance()
            except BaseException:
                await self.aclose()
                raise
            if self._signal.aborted and self._result is None:
                await self._stop()

    @property
    def result(self) -> ProviderResult:
        """The turn's result; reading it before the stream ended raises `RuntimeError`."""
        return finished(self._result, self._pending)

    async def aclose(self) -> None:
        """Closes the response, if it is open."""
        response, self._response = self._response, None
        body, self._bytes = self._bytes, None
        await close(response, body)

    async def _stop(self) -> None:
        await self.aclose()
        raise ProviderAbortError(self.partial(), self._signal.reason)

    async def _advance(self) -> None:
        if self._expires is None:
            self._expires = anyio.current_time() + self._backend.deadline
        with anyio.CancelScope(deadline=self._expires):
            return await self._step()
        raise self._backend.overdue()

    async def _step(self) -> None:
        if self._response is None:
            self._response = await self._backend.open(self._body)
            self._bytes = _body(self._response)
        assert self._bytes is not None
        try:
            chunk = await self._bytes.__anext__()
        except StopAsyncIteration:
            self._end(self._decoder.close())
            return
        except httpx.HTTPError as error:
            text = redact(f"{type(error).__name__}: {error}", self._backend.secret)
            raise ProviderError("NETWORK", f"reading the stream failed: {text}"[:300]) from None
        self._size += len(chunk)
        if self._size > self._backend.limit:
            limit = self._backend.limit
            raise ProviderError(
                "PROTOCOL", f"response body exceeds {limit} bytes", {"limit": limit}
            )
        for event in self._decoder.feed(chunk):
            self._handle_event(event)
            if self._ended:
                break
        if self._ended:
            await self.aclose()
            self._result = self.finish()

    def _end(self, events: list[Event]) -> None:
        for event in events:
            if not self._ended:
                self._handle_event(event)
        self._result = self.finish(closed=not self._ended)

    def _handle_event(self, event: Event) -> None:
        for delta in self.handle(event):
            if delta["text"]:
                self._pending.append(delta)

    def end(self) -> None:
        """Marks the stream complete (the backend's end marker arrived)."""
        self._ended = True

    def handle(self, event: Event) -> list[ProviderDelta]:
        """Takes one event and returns the deltas it carries."""
        raise NotImplementedError

    def finish(self, *, closed: bool = False) -> ProviderResult:
        """Builds the result; `closed` says the body ended without the end marker."""
        raise NotImplementedError

    def partial(self) -> ProviderResult:
        """What had arrived when the stream was stopped."""
        raise NotImplementedError


class AbortedStream:
    """A stream whose signal had aborted before it started: it raises at once."""

    def __init__(self, signal: AbortSignal) -> None:
        self._signal = signal

    def __aiter__(self) -> AbortedStream:
        return self

    async def __anext__(self) -> ProviderDelta:
        raise ProviderAbortError({"content": ""}, self._signal.reason)

    @property
    def result(self) -> ProviderResult:
        """Raises `RuntimeError`: an aborted stream has no result."""
        raise RuntimeError("the stream was aborted")

    async def aclose(self) -> None:
        """Does nothing: an aborted stream never opened a connection."""


class OneShotStream:
    """A stream over a provider's non-streaming call, for backends asked not to stream: it yields
    the reasoning and the content of the finished answer as two deltas."""

    def __init__(self, call: Callable[[], Awaitable[ProviderResult]]) -> None:
        self._call = call
        self._pending: deque[ProviderDelta] | None = None
        self._result: ProviderResult | None = None

    def __aiter__(self) -> OneShotStream:
        return self

    async def __anext__(self) -> ProviderDelta:
        if self._pending is None:
            self._result = await self._call()
            self._pending = deque()
            for kind in ("thinking", "content"):
                text = self._result.get(kind)
                if isinstance(text, str) and text:
                    self._pending.append({"type": kind, "text": text})
        if self._pending:
            return self._pending.popleft()
        raise StopAsyncIteration

    @property
    def result(self) -> ProviderResult:
        """The turn's result; reading it before the stream ended raises `RuntimeError`."""
        return finished(self._result, self._pending)

    async def aclose(self) -> None:
        """Does nothing: the call holds no connection once it returned."""
