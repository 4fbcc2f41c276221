"""`OpenAICompatibleProvider`: the Chat Completions API over httpx, as OpenAI, vLLM, llama.cpp,
Ollama and LM Studio serve it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from orkestrel.abort import AbortSignal
from orkestrel.agent.constants import OPENAI_BASE_URL
from orkestrel.agent.errors import ProviderError
from orkestrel.agent.providers.base import HTTPProvider
from orkestrel.agent.providers.helpers import (
    check_messages,
    check_role,
    parse_arguments,
    render_tools,
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
from orkestrel.agent.think import ThinkSplitter
from orkestrel.agent.types import HTTPProviderOptions, Message, ProviderDelta, ProviderResult
from orkestrel.tool import ToolCall, ToolDefinition

_REASONING = ("reasoning_content", "reasoning")


def _arguments_text(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def render_openai_message(message: Message) -> dict[str, Any]:
    """Renders one message in the Chat Completions format."""
    role, content = message["role"], message["content"]
    if role == "tool":
        if "call" not in message:
            raise ProviderError("REQUEST", "a tool message needs the id of the call it answers")
        return {"role": "tool", "tool_call_id": message["call"], "content": content}
    if role == "assistant":
        calls = message.get("calls", [])
        rendered: dict[str, Any] = {"role": "assistant", "content": content or None}
        if calls:
            rendered["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": _arguments_text(call["arguments"]),
                    },
                }
                for call in calls
            ]
        elif not content:
            rendered["content"] = ""
        return rendered
    images = message.get("images", [])
    if role == "user" and images:
        parts: list[dict[str, Any]] = [{"type": "text", "text": content}] if content else []
        parts.extend({"type": "image_url", "image_url": {"url": url}} for url in images)
        return {"role": "user", "content": parts}
    return {"role": role, "content": content}


def _text(value: Any, what: str) -> str:
    """Content as text: a string, `None` as empty, or a list of text parts joined."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(part, dict) and isinstance(part.get("text"), str) for part in value
    ):
        return "".join(part["text"] for part in value)
    raise ProviderError("PROTOCOL", f"{what} is not text")


def parse_openai_completion(data: Any) -> ProviderResult:
    """Reads a non-streamed Chat Completions answer into a `ProviderResult`."""
    if not isinstance(data, dict):
        raise ProviderError("PROTOCOL", "the response is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderError("PROTOCOL", "the response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ProviderError("PROTOCOL", "the response's first choice has no message")
    check_role(message.get("role"))
    splitter = ThinkSplitter()
    splitter.split(_text(message.get("content"), "the message content"))
    splitter.flush()
    result: ProviderResult = {"content": splitter.content}
    reasoning = [_text(message.get(key), key) for key in _REASONING if message.get(key)]
    thinking = "\n\n".join(part for part in (*reasoning, splitter.thinking) if part)
    if thinking:
        result["thinking"] = thinking
    raw = message.get("tool_calls") or []
    if not isinstance(raw, list):
        raise ProviderError("PROTOCOL", "tool_calls is not a list")
    calls: list[ToolCall] = []
    for index, call in enumerate(raw):
        if not isinstance(call, dict):
            raise ProviderError("PROTOCOL", f"tool call {index} is not an object")
        ident = tool_id(call.get("id"), index)
        function = call.get("function")
        if not isinstance(function, dict):
            raise ProviderError("PROTOCOL", f"tool call '{ident}' has no function", {"call": ident})
        name = tool_name(function.get("name"), ident)
        calls.append(
            {
                "id": ident,
                "name": name,
                "arguments": parse_arguments(function.get("arguments"), ident),
            }
        )
    if calls:
        result["tools"] = calls
    usage = _usage(data.get("usage"))
    if usage is not None:
        result["usage"] = usage
    return result


def _usage(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    return usage_of(
        value.get("prompt_tokens"), value.get("completion_tokens"), value.get("total_tokens")
    )


class OpenAICompatibleProvider(HTTPProvider):
    """Talks to a Chat Completions endpoint (`POST {base_url}/chat/completions`): tools rendered
    by `export(..., "openai")`, answers streamed over server-sent events, `<think>` spans and
    `reasoning_content` kept apart as reasoning.

    `client` is an `httpx.AsyncClient` the caller owns; without one the provider makes its own
    and `aclose()` closes it. `headers` and `body` add to every request (`body` for options such
    as `temperature`; a `None` value removes a key). `think_body` is merged into the body of a
    call made with `think=True`. `streaming=False` makes `stream()` a single non-streamed call.
    A 429 is retried up to `retries` times after the `Retry-After` the backend asks for, when it
    is at most `wait` seconds. A body over `limit` bytes is a `PROTOCOL` error; `timeout` is the
    read timeout in seconds and `deadline` the total time one request may take (a `DEADLINE`
    error past it). The API key is never part of an error message or `repr`.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        name: str = "openai",
        headers: Mapping[str, str] | None = None,
        think_body: Mapping[str, Any] | None = None,
        **options: Unpack[HTTPProviderOptions],
    ) -> None:
        merged = {"content-type": "application/json", **dict(headers or {})}
        if isinstance(api_key, str) and api_key:
            merged["authorization"] = f"Bearer {api_key}"
        super().__init__(
            model=model,
            base_url=base_url,
            path="/chat/completions",
            name=name,
            api_key=api_key,
            headers=merged,
            **options,
        )
        self._think = dict(think_body or {})

    def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] | None = None,
        *,
        stream: bool = False,
        think: bool | None = None,
    ) -> dict[str, Any]:
        """Builds the JSON body of one request, exactly as it is sent."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [render_openai_message(m) for m in check_messages(messages)],
        }
        rendered = render_tools(tools, "openai")
        if rendered is not None:
            body["tools"] = rendered
        body["stream"] = stream
        if stream:
            body["stream_options"] = {"include_usage": True}
        extra = {**self._body, **(self._think if think else {})}
        body.update(extra)
        return {key: value for key, value in body.items() if value is not None}

    def parse(self, data: Any) -> ProviderResult:
        """Reads a whole Chat Completions answer into a `ProviderResult`."""
        return parse_openai_completion(data)

    def open(self, body: Mapping[str, Any], signal: AbortSignal) -> EventStream:
        """Makes the stream that reads one streamed Chat Completions answer."""
        return OpenAIStream(self._backend, body, signal)


class OpenAIStream(EventStream):
    """One streamed Chat Completions turn: `data:` chunks up to `[DONE]`, content through a
    `ThinkSplitter`, tool calls gathered by index, usage from the last chunk."""

    def __init__(self, backend: Backend, body: Mapping[str, Any], signal: AbortSignal) -> None:
        super().__init__(backend, body, signal)
        self._splitter = ThinkSplitter()
        self._reasoning: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._usage: Any = None
        self._finished = False

    def handle(self, event: Event) -> list[ProviderDelta]:
        """Takes one `data:` chunk and returns its content and reasoning deltas."""
        if event.data.strip() == "[DONE]":
            self.end()
            return []
        chunk = load_json(event.data, "a stream chunk")
        if not isinstance(chunk, dict):
            raise ProviderError("PROTOCOL", "a stream chunk is not a JSON object")
        if "error" in chunk:
            raise stream_error(chunk["error"], self._backend.secret)
        if chunk.get("usage") is not None:
            self._usage = _usage(chunk["usage"])
        choices = chunk.get("choices") or []
        if not isinstance(choices, list):
            raise ProviderError("PROTOCOL", "a stream chunk's choices is not a list")
        deltas: list[ProviderDelta] = []
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            if choice.get("finish_reason") is not None:
                self._finished = True
            delta = choice.get("delta")
            if delta is None:
                continue
            if not isinstance(delta, dict):
                raise ProviderError("PROTOCOL", "a stream chunk's delta is not an object")
            check_role(delta.get("role"))
            for key in _REASONING:
                if delta.get(key):
                    text = _text(delta[key], key)
                    self._reasoning.append(text)
                    deltas.append({"type": "thinking", "text": text})
            if delta.get("content") is not None:
                before = self._splitter.thinking
                clean = self._splitter.split(_text(delta["content"], "the delta content"))
                after = self._splitter.thinking
                if len(after) > len(before):
                    deltas.append({"type": "thinking", "text": after[len(before) :]})
                deltas.append({"type": "content", "text": clean})
            if delta.get("tool_calls") is not None:
                self._gather(delta["tool_calls"])
        return deltas

    def _gather(self, fragments: Any) -> None:
        if not isinstance(fragments, list):
            raise ProviderError("PROTOCOL", "a stream chunk's tool_calls is not a list")
        for fragment in fragments:
            if not isinstance(fragment, dict):
                raise ProviderError("PROTOCOL", "a tool call fragment is not an object")
            index = fragment.get("index")
            if isinstance(index, bool) or not isinstance(index, int):
                index = self._index_of(fragment.get("id"))
            call = self._calls.setdefault(index, {"id": None, "name": None, "arguments": []})
            if isinstance(fragment.get("id"), str) and fragment["id"]:
                call["id"] = fragment["id"]
            function = fragment.get("function")
            if isinstance(function, dict):
                if isinstance(function.get("name"), str) and function["name"]:
                    call["name"] = function["name"]
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    call["arguments"].append(arguments)
                elif isinstance(arguments, dict):
                    call["arguments"] = [json.dumps(arguments)]

    def _index_of(self, ident: Any) -> int:
        """Where an index-less fragment belongs: the call with its id, else a new call when it
        has an id, else the latest call."""
        for index, call in self._calls.items():
            if ident and call["id"] == ident:
                return index
        if not self._calls:
            return 0
        return max(self._calls) + 1 if ident else max(self._calls)

    def _tools(self, *, lenient: bool) -> list[ToolCall]:
        calls: list[ToolCall] = []
        for position, index in enumerate(sorted(self._calls)):
            call = self._calls[index]
            try:
                ident = tool_id(call["id"], position)
                name = tool_name(call["name"], ident)
                arguments = parse_arguments("".join(call["arguments"]), ident)
            except ProviderError:
                if lenient:
                    continue
                raise
            calls.append({"id": ident, "name": name, "arguments": arguments})
        return calls

    def _build(self, *, lenient: bool) -> ProviderResult:
        result: ProviderResult = {"content": self._splitter.content}
        thinking = "\n\n".join(p for p in ("".join(self._reasoning), self._splitter.thinking) if p)
        if thinking:
            result["thinking"] = thinking
        calls = self._tools(lenient=lenient)
        if calls:
            result["tools"] = calls
        if self._usage is not None:
            result["usage"] = self._usage
        return result

    def finish(self, *, closed: bool = False) -> ProviderResult:
        """Builds the turn's result once `[DONE]` arrived (or the body ended after a finish
        reason)."""
        if closed and not self._finished:
            raise ProviderError("PROTOCOL", "the stream ended before [DONE]")
        tail = self._splitter.flush()
        if tail:
            self._pending.append({"type": "content", "text": tail})
        return self._build(lenient=False)

    def partial(self) -> ProviderResult:
        """What had arrived when the stream was stopped: text, reasoning, complete tool calls,
        usage."""
        return self._build(lenient=True)
