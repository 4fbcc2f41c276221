"""`ScriptedProvider`: a provider that plays back scripted turns, for tests and examples."""

from __future__ import annotations

import inspect
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict

from orkestrel.abort import AbortSignal
from orkestrel.agent.errors import ProviderAbortError, ProviderError
from orkestrel.agent.helpers import close_stream, finished
from orkestrel.agent.messages import copy_message
from orkestrel.agent.types import Message, ProviderDelta, ProviderResult
from orkestrel.tool import ToolDefinition

ScriptedTurn = ProviderResult | str | BaseException | Callable[..., Any]
"""One scripted turn: a `ProviderResult` mapping, a string (its content), an exception (raised),
or a callable `(messages, tools, signal)` returning any of those, an awaitable of one, or an
async iterator of content strings."""


class ScriptedCall(TypedDict):
    """Records one call a scripted provider received: the messages, the tools and `think`."""

    messages: list[Message]
    tools: list[ToolDefinition] | None
    think: bool | None


class ScriptedProvider:
    """Answers each call with the next scripted turn and records every call in `calls`.

    An already-aborted signal raises `ProviderAbortError` before the call is recorded, so a run
    that never reached the provider leaves `calls` empty. Out of turns, a call raises
    `ProviderError` (`SCRIPT`). With `stream=True` the provider also streams: each answer comes
    out in deltas of `chunk` characters, and a turn that is an async iterator of strings streams
    each string as it comes, so a test can stop a stream half way.
    """

    __slots__ = ("_chunk", "_id", "_name", "_turns", "calls", "stream")

    calls: list[ScriptedCall]
    stream: Callable[..., ScriptedStream] | None

    def __init__(
        self,
        turns: Iterable[ScriptedTurn] = (),
        *,
        id: str | None = None,
        name: str = "scripted",
        stream: bool = False,
        chunk: int = 4,
    ) -> None:
        if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
            raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
        self._turns: deque[ScriptedTurn] = deque(turns)
        self._id = id if id is not None else uuid.uuid4().hex
        self._name = name
        self._chunk = chunk
        self.calls = []
        self.stream = self._stream if stream else None

    @property
    def id(self) -> str:
        """The provider's trace label: the given `id`, or a random hex UUID."""
        return self._id

    @property
    def name(self) -> str:
        """The backend name, `scripted` unless given."""
        return self._name

    @property
    def remaining(self) -> int:
        """How many scripted turns are left."""
        return len(self._turns)

    def push(self, *turns: ScriptedTurn) -> None:
        """Appends turns to the script."""
        self._turns.extend(turns)

    async def generate(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> ProviderResult:
        """Answers with the next scripted turn, or raises the scripted exception."""
        value = await self._next(messages, signal, tools, think)
        if not _is_stream(value):
            return _as_result(value)
        parts: list[str] = []
        with signal.scope():
            async for part in value:
                parts.append(str(part))
        if signal.aborted:
            raise ProviderAbortError({"content": "".join(parts)}, signal.reason)
        return {"content": "".join(parts)}

    def _stream(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> ScriptedStream:
        return ScriptedStream(self, messages, signal, tools, think)

    async def _next(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None,
        think: bool | None,
    ) -> Any:
        if signal.aborted:
            raise ProviderAbortError({"content": ""}, signal.reason)
        self.calls.append(
            {
                "messages": [copy_message(message) for message in messages],
                "tools": None if tools is None else [dict(tool) for tool in tools],  # type: ignore[misc]
                "think": think,
            }
        )
        if not self._turns:
            raise ProviderError("SCRIPT", "script exhausted")
        turn = self._turns.popleft()
        if callable(turn) and not isinstance(turn, BaseException):
            turn = turn(list(messages), None if tools is None else list(tools), signal)
            if inspect.isawaitable(turn):
                turn = await turn
        if isinstance(turn, BaseException):
            raise turn
        return turn

    def __repr__(self) -> str:
        return f"ScriptedProvider(name={self._name!r}, remaining={len(self._turns)})"


class ScriptedStream:
    """Streams one scripted turn as deltas; `result` is set when the iteration ends."""

    __slots__ = (
        "_args",
        "_done",
        "_pending",
        "_provider",
        "_result",
        "_signal",
        "_source",
        "_text",
    )

    def __init__(
        self,
        provider: ScriptedProvider,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None,
        think: bool | None,
    ) -> None:
        self._provider = provider
        self._args = (messages, signal, tools, think)
        self._signal = signal
        self._pending: deque[ProviderDelta] | None = None
        self._source: AsyncIterator[Any] | None = None
        self._text: list[str] = []
        self._result: ProviderResult | None = None
        self._done = False

    def __aiter__(self) -> ScriptedStream:
        return self

    async def __anext__(self) -> ProviderDelta:
        if self._pending is None:
            value = await self._provider._next(*self._args)
            self._pending = deque()
            if _is_stream(value):
                self._source = value.__aiter__()
            else:
                self._result = _as_result(value)
                self._pending.extend(_deltas(self._result, self._provider._chunk))
        if self._pending:
            return self._pending.popleft()
        if self._source is not None and not self._done:
            part: Any = None
            with self._signal.scope():
                try:
                    part = await self._source.__anext__()
                except StopAsyncIteration:
                    self._done = True
            if self._signal.aborted:
                raise ProviderAbortError({"content": "".join(self._text)}, self._signal.reason)
            if not self._done:
                text = str(part)
                self._text.append(text)
                return {"type": "content", "text": text}
            self._result = {"content": "".join(self._text)}
        raise StopAsyncIteration

    @property
    def result(self) -> ProviderResult:
        """The turn's result; reading it before the iteration ended raises `RuntimeError`."""
        return finished(self._result, self._pending)

    async def aclose(self) -> None:
        """Stops the stream, closing a scripted async iterator."""
        self._done = True
        await close_stream(self._source)


def _is_stream(value: Any) -> bool:
    return hasattr(value, "__aiter__") and not isinstance(value, Mapping | str)


def _as_result(value: Any) -> ProviderResult:
    if isinstance(value, str):
        return {"content": value}
    if isinstance(value, Mapping):
        return dict(value)  # type: ignore[return-value]
    return value  # type: ignore[no-any-return]


def _deltas(result: Any, chunk: int) -> list[ProviderDelta]:
    deltas: list[ProviderDelta] = []
    thinking = result.get("thinking") if isinstance(result, Mapping) else None
    if isinstance(thinking, str) and thinking:
        deltas.append({"type": "thinking", "text": thinking})
    content = result.get("content") if isinstance(result, Mapping) else None
    if isinstance(content, str):
        deltas.extend(
            {"type": "content", "text": content[start : start + chunk]}
            for start in range(0, len(content), chunk)
        )
    return deltas
