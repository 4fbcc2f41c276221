"""The loopback servers speak the real wire formats: the official OpenAI and Anthropic SDKs
validate every fake answer with their own response models and, as clients of the loopback
servers, read the same streams, tool calls and errors our providers read."""

from __future__ import annotations

import json

import anthropic
import openai
import pydantic
import pytest
from anthropic.types import Message as AnthropicMessage
from anthropic.types import RawMessageStreamEvent
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agent.servers import (
    Backend,
    anthropic_error,
    anthropic_message,
    anthropic_stream,
    json_reply,
    openai_call,
    openai_completion,
    openai_error,
    openai_stream,
    stream_reply,
)

pytestmark = pytest.mark.anyio

KEY = "sk-fidelity"
CALLS = [("call_a", "weather", '{"city": "Zürich"}'), ("call_b", "time", '{"zone": "UTC"}')]
BLOCKS = [
    {"type": "text", "text": "Checking."},
    {"type": "tool_use", "id": "toolu_a", "name": "weather", "json": '{"city": "Zürich"}'},
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def payloads(chunks: list[bytes]) -> list[str]:
    return [
        line.removeprefix("data: ")
        for chunk in chunks
        for line in chunk.decode().splitlines()
        if line.startswith("data: ")
    ]


def test_openai_models_accept_every_fake_answer() -> None:
    ChatCompletion.model_validate(openai_completion("hi"))
    ChatCompletion.model_validate(openai_completion(None, [openai_call("c", "w", {"a": 1})]))
    data = payloads(openai_stream(["Hel", "lo"], CALLS, reasoning=["r"]))
    assert data[-1] == "[DONE]"
    for text in data[:-1]:
        ChatCompletionChunk.model_validate_json(text)


def test_anthropic_models_accept_every_fake_answer() -> None:
    AnthropicMessage.model_validate(anthropic_message([{"type": "text", "text": "hi"}]))
    events = pydantic.TypeAdapter(RawMessageStreamEvent)
    data = payloads(anthropic_stream([{"type": "thinking", "thinking": "t"}, *BLOCKS]))
    assert json.loads(data[1]) == {"type": "ping"}, "the documented keep-alive event"
    for text in data[:1] + data[2:]:
        events.validate_json(text)


async def test_the_openai_sdk_reads_the_fake_stream(backend: Backend) -> None:
    backend.push(stream_reply(openai_stream(["Hel", "lo"], CALLS, usage=(3, 4))))
    client = openai.AsyncOpenAI(base_url=f"{backend.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        stream = await client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "?"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        content: list[str] = []
        arguments: dict[int, list[str]] = {}
        usage = None
        async for chunk in stream:
            if chunk.usage is not None:
                usage = chunk.usage
            for choice in chunk.choices:
                if choice.delta.content:
                    content.append(choice.delta.content)
                for call in choice.delta.tool_calls or []:
                    arguments.setdefault(call.index, []).append(call.function.arguments or "")
    assert "".join(content) == "Hello"
    assert [json.loads("".join(parts)) for parts in arguments.values()] == [
        {"city": "Zürich"},
        {"zone": "UTC"},
    ]
    assert usage is not None
    assert usage.total_tokens == 7


async def test_the_openai_sdk_maps_the_fake_errors(backend: Backend) -> None:
    backend.push(
        openai_error(401, "bad key", "invalid_request_error"),
        openai_error(429, "slow down", "requests", "rate_limit_exceeded"),
    )
    client = openai.AsyncOpenAI(base_url=f"{backend.url}/v1", api_key=KEY, max_retries=0)
    async with client:
        with pytest.raises(openai.AuthenticationError, match="bad key"):
            await client.chat.completions.create(model="m", messages=[])
        with pytest.raises(openai.RateLimitError, match="slow down"):
            await client.chat.completions.create(model="m", messages=[])


async def test_the_anthropic_sdk_reads_the_fake_stream(backend: Backend) -> None:
    backend.push(stream_reply(anthropic_stream(BLOCKS, usage=(9, 5))))
    client = anthropic.AsyncAnthropic(base_url=backend.url, api_key=KEY, max_retries=0)
    async with (
        client,
        client.messages.stream(
            model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "?"}]
        ) as stream,
    ):
        message = await stream.get_final_message()
    assert message.content[0].type == "text"
    assert message.content[0].text == "Checking."
    tool = message.content[1]
    assert tool.type == "tool_use"
    assert tool.input == {"city": "Zürich"}
    assert tool.id == "toolu_a"
    assert message.usage.input_tokens == 9
    assert message.usage.output_tokens == 5


async def test_the_anthropic_sdk_maps_the_fake_errors(backend: Backend) -> None:
    backend.push(
        anthropic_error(401, "authentication_error", "invalid x-api-key"),
        anthropic_error(529, "overloaded_error", "Overloaded"),
        json_reply(anthropic_message([{"type": "text", "text": "fine"}])),
    )
    client = anthropic.AsyncAnthropic(base_url=backend.url, api_key=KEY, max_retries=0)
    request = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "?"}]}
    async with client:
        with pytest.raises(anthropic.AuthenticationError, match="invalid x-api-key"):
            await client.messages.create(**request)  # type: ignore[call-overload]
        with pytest.raises(anthropic.APIStatusError, match="Overloaded"):
            await client.messages.create(**request)  # type: ignore[call-overload]
        message = await client.messages.create(**request)  # type: ignore[call-overload]
    assert message.content[0].text == "fine"
