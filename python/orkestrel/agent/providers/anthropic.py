"""`AnthropicProvider`: the Anthropic Messages API over httpx, with `tool_use` / `tool_result`
blocks and streaming."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from orkestrel.abort import AbortSignal
from orkestrel.agent.constants import ANTHROPIC_BASE_URL, ANTHROPIC_MAX_TOKENS, ANTHROPIC_VERSION
from orkestrel.agent.errors import ProviderError
from orkestrel.agent.providers.base import HTTPProvider
from orkestrel.agent.providers.helpers import (
    check_messages,
    check_role,
    parse_arguments,
    render_tools,
    split_data_url,
    tool_id,
    tool_name,
    usage_of,
)
from orkestrel.agent.providers.http import (
    Backend,
    Event,
    EventStream,
    load_json,
    stream_error,
)
from orkestrel.agent.types import HTTPProviderOptions, Message, ProviderDelta, ProviderResult
from orkestrel.tool import ToolCall, ToolDefinition


def _image(url: str) -> dict[str, Any]:
    split = split_data_url(url)
    if split is None:
        return {"type": "image", "source": {"type": "url", "url": url}}
    mime, data = split
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    role, content = message["role"], message["content"]
    if role == "tool":
        if "call" not in message:
            raise ProviderError("REQUEST", "a tool message needs the id of the call it answers")
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message["call"]}
        if content:
            block["content"] = content
        if message.get("error"):
            block["is_error"] = True
        return "user", [block]
    blocks: list[dict[str, Any]] = []
    if role == "user":
        blocks.extend(_image(url) for url in message.get("images", []))
    if content:
        blocks.append({"type": "text", "text": content})
    if role == "assistant":
        blocks.extend(
            {"type": "tool_use", "id": call["id"], "name": call["name"], "input": call["arguments"]}
            for call in message.get("calls", [])
        )
    return role, blocks


def render_anthropic_messages(messages: Sequence[Message]) -> tuple[str | None, list[Any]]:
    """Renders messages in the Messages API format: the system messages joined into the
    top-level `system` text, and the rest as alternating turns of content blocks (tool answers
    as `tool_result` blocks of a user turn; consecutive messages of one role merged)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message["role"] == "system":
            if message["content"]:
                system.append(message["content"])
            continue
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return ("\n\n".join(system) if system else None), turns


def _usage(value: Any, output: Any = None) -> Any:
    if not isinstance(value, dict):
        return None
    prompt = value.get("input_tokens")
    if isinstance(prompt, int) and not isinstance(prompt, bool):
        for key in ("cache_creation_input_tokens", "cache_read_input_tokens"):
            extra = value.get(key)
            if isinstance(extra, int) and not isinstance(extra, bool):
                prompt += extra
    return usage_of(prompt, value.get("output_tokens") if output is None else output)


def parse_anthropic_message(data: Any, secret: str | None = None) -> ProviderResult:
    """Reads a non-streamed Messages API answer into a `ProviderResult`."""
    if not isinstance(data, dict):
        raise ProviderError("PROTOCOL", "the response is not a JSON object")
    if data.get("type") == "error":
        raise stream_error(data.get("error"), secret)
    if data.get("type") != "message":
        raise ProviderError("PROTOCOL", "the response is not a message")
    check_role(data.get("role"))
    if data.get("role") is None:
        raise ProviderError("PROTOCOL", "the response message has no role")
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise ProviderError("PROTOCOL", "the response message has no content blocks")
    text: list[str] = []
    thinking: list[str] = []
    calls: list[ToolCall] = []
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            raise ProviderError("PROTOCOL", f"content block {index} is not an object")
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
        elif kind == "tool_use":
            ident = tool_id(block.get("id"), len(calls))
            name = tool_name(block.get("name"), ident)
            calls.append(
                {"id": ident, "name": name, "arguments": parse_arguments(block.get("input"), ident)}
            )
    result: ProviderResult = {"content": "".join(text)}
    if any(thinking):
        result["thinking"] = "\n\n".join(part for part in thinking if part)
    if calls:
        result["tools"] = calls
    usage = _usage(data.get("usage"))
    if usage is not None:
        result["usage"] = usage
    return result


class AnthropicProvider(HTTPProvider):
    """Talks to the Messages API (`POST {base_url}/v1/messages`): tools rendered by
    `export(..., "anthropic")`, tool calls and answers as `tool_use` / `tool_result` blocks,
    answers streamed over server-sent events, `thinking` blocks kept apart as reasoning.

    `client` is an `httpx.AsyncClient` the caller owns; without one the provider makes its own
    and `aclose()` closes it. `max_tokens` is sent with every request; `thinking` (a token
    budget) turns on extended thinking for a call made with `think=True`. `headers` and `body`
    add to every request (a `None` body value removes a key). `streaming=False` makes `stream()`
    a single non-streamed call. A 429 is retried up to `retries` times after the `Retry-After`
    the backend asks for, when it is at most `wait` seconds. A body over `limit` bytes is a
    `PROTOCOL` error; `timeout` is the read timeout in seconds and `deadline` the total time one
    request may take (a `DEADLINE` error past it). The API key is never part of an error
    message or `repr`.
    """

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str = ANTHROPIC_BASE_URL,
        name: str = "anthropic",
        headers: Mapping[str, str] | None = None,
        version: str = ANTHROPIC_VERSION,
        max_tokens: int = ANTHROPIC_MAX_TOKENS,
        thinking: int | None = None,
        **options: Unpack[HTTPProviderOptions],
    ) -> None:
        for option, value in (("max_tokens", max_tokens), ("thinking", thinking)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ValueError(f"{option} must be a positive integer, got {value!r}")
        merged = {
            "content-type": "application/json",
            "anthropic-version": version,
            **dict(headers or {}),
        }
        if isinstance(api_key, str) and api_key:
            merged["x-api-key"] = api_key
        super().__init__(
            model=model,
            base_url=base_url,
            path="/v1/messages",
            name=name,
            api_key=api_key,
            headers=merged,
            **options,
        )
        self._max_tokens = max_tokens
        self._thinking = thinking

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] | None = None,
        *,
        stream: bool = False,
        think: bool | None = None,
    ) -> dict[str, Any]:
        """Builds the JSON body of one request, exactly as it is sent."""
        system, turns = render_anthropic_messages(check_messages(messages))
        body: dict[str, Any] = {"model": self._model, "max_tokens": self._max_tokens}
        if system is not None:
            body["system"] = system
        body["messages"] = turns
        rendered = render_tools(tools, "anthropic")
        if rendered is not None:
            body["tools"] = rendered
        if think and self._thinking is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": self._thinking}
        body["stream"] = stream
        body.update(self._body)
        return {key: value for key, value in body.items() if value is not None}

    def parse(self, data: Any) -> ProviderResult:
        """Reads a whole Messages API answer into a `ProviderResult`."""
        return parse_anthropic_message(data, self._backend.secret)

    def open(self, body: Mapping[str, Any], signal: AbortSignal) -> EventStream:
        """Makes the stream that reads one streamed Messages API answer."""
        return AnthropicStream(self._backend, body, signal)


class AnthropicStream(EventStream):
    """One streamed Messages API turn: `message_start`, content blocks opened, filled by deltas
    and stopped, `message_delta` with the output usage, then `message_stop`."""

    def __init__(self, backend: Backend, body: Mapping[str, Any], signal: AbortSignal) -> None:
        super().__init__(backend, body, signal)
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._blocks: dict[int, dict[str, Any]] = {}
        self._input: Any = None
        self._output: Any = None
        self._started = False

    def handle(self, event: Event) -> list[ProviderDelta]:
        """Takes one event and returns its text and thinking deltas."""
        data = load_json(event.data, "a stream event")
        if not isinstance(data, dict):
            raise ProviderError("PROTOCOL", "a stream event is not a JSON object")
        kind = data.get("type", event.name)
        if kind == "error":
            raise stream_error(data.get("error"), self._backend.secret)
        if kind == "message_start":
            self._start(data.get("message"))
        elif kind == "content_block_start":
            self._open(data)
        elif kind == "content_block_delta":
            return self._delta(data)
        elif kind == "message_delta":
            usage = data.get("usage")
            if isinstance(usage, dict):
                if usage.get("input_tokens") is not None:
                    self._input = usage
                self._output = usage.get("output_tokens", self._output)
        elif kind == "message_stop":
            self.end()
        return []

    def _start(self, message: Any) -> None:
        if not isinstance(message, dict):
            raise ProviderError("PROTOCOL", "message_start carries no message")
        check_role(message.get("role"))
        self._started = True
        usage = message.get("usage")
        if isinstance(usage, dict):
            self._input = usage
            self._output = usage.get("output_tokens")

    def _index(self, data: dict[str, Any]) -> int:
        index = data.get("index")
        if isinstance(index, bool) or not isinstance(index, int):
            raise ProviderError("PROTOCOL", "a content block event has no index")
        return index

    def _open(self, data: dict[str, Any]) -> None:
        index = self._index(data)
        block = data.get("content_block")
        if not isinstance(block, dict):
            raise ProviderError("PROTOCOL", "content_block_start carries no block")
        kind = block.get("type")
        if kind == "tool_use":
            ident = tool_id(
                block.get("id"), len([b for b in self._blocks.values() if b["type"] == "tool_use"])
            )
            name = tool_name(block.get("name"), ident)
            self._blocks[index] = {"type": "tool_use", "id": ident, "name": name, "json": []}
        elif kind in ("text", "thinking"):
            self._blocks[index] = {"type": kind}
            seed = block.get(kind)
            if isinstance(seed, str) and seed:
                (self._text if kind == "text" else self._thinking).append(seed)

    def _delta(self, data: dict[str, Any]) -> list[ProviderDelta]:
        index = self._index(data)
        delta = data.get("delta")
        if not isinstance(delta, dict):
            raise ProviderError("PROTOCOL", "content_block_delta carries no delta")
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            self._text.append(delta["text"])
            return [{"type": "content", "text": delta["text"]}]
        if kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            self._thinking.append(delta["thinking"])
            return [{"type": "thinking", "text": delta["thinking"]}]
        if kind == "input_json_delta":
            block = self._blocks.get(index)
            if block is None or block["type"] != "tool_use":
                raise ProviderError(
                    "PROTOCOL", f"input_json_delta for block {index}, not a tool_use block"
                )
            if isinstance(delta.get("partial_json"), str):
                block["json"].append(delta["partial_json"])
        return []

    def _build(self, *, lenient: bool) -> ProviderResult:
        result: ProviderResult = {"content": "".join(self._text)}
        thinking = "".join(self._thinking)
        if thinking:
            result["thinking"] = thinking
        calls: list[ToolCall] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            if block["type"] != "tool_use":
                continue
            try:
                arguments = parse_arguments("".join(block["json"]), block["id"])
            except ProviderError:
                if lenient:
                    continue
                raise
            calls.append({"id": block["id"], "name": block["name"], "arguments": arguments})
        if calls:
            result["tools"] = calls
        usage = _usage(self._input, self._output)
        if usage is not None:
            result["usage"] = usage
        return result

    def finish(self, *, closed: bool = False) -> ProviderResult:
        """Builds the turn's result once `message_stop` arrived."""
        if closed:
            raise ProviderError("PROTOCOL", "the stream ended before message_stop")
        if not self._started:
            raise ProviderError("PROTOCOL", "the stream had no message_start")
        return self._build(lenient=False)

    def partial(self) -> ProviderResult:
        """What had arrived when the stream was stopped: text, thinking, complete tool calls,
        usage."""
        return self._build(lenient=True)
