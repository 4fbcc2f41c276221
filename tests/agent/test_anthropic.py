"""`AnthropicProvider` against a loopback server that speaks the Messages API: request bodies with
`tool_use` / `tool_result` blocks, whole and streamed answers, tool input split across
`input_json_delta` events, thinking, usage, typed errors, retries and cancellation."""

from __future__ import annotations

from typing import Any

import pytest

from agent.helpers import WEATHER, consume, live, read_until, user
from agent.servers import (
    Backend,
    Reply,
    anthropic_error,
    anthropic_message,
    anthropic_stream,
    json_reply,
    rechunk,
    sse,
    stream_reply,
)
from orkestrel.abort import AbortController
from orkestrel.agent import (
    Message,
    ProviderAbortError,
    ProviderError,
    create_anthropic_provider,
)
from orkestrel.agent.providers import AnthropicProvider
from orkestrel.tool import export

pytestmark = pytest.mark.anyio

KEY = "sk-ant-test-0123456789"


def provider(backend: Backend, **options: Any) -> AnthropicProvider:
    return create_anthropic_provider(
        model="claude-test", base_url=backend.url, api_key=KEY, **options
    )


async def test_a_whole_answer_and_its_request(backend: Backend) -> None:
    blocks = [{"type": "text", "text": "Sunny."}]
    backend.push(json_reply(anthropic_message(blocks, usage=(20, 7))))
    async with provider(backend, max_tokens=512, body={"temperature": 0.5}) as model:
        result = await model.generate(
            [{"id": "s", "role": "system", "content": "Be brief."}, user("Weather?")],
            live(),
            [WEATHER],
        )
    assert result == {"content": "Sunny.", "usage": {"prompt": 20, "completion": 7, "total": 27}}
    [request] = backend.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 512,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}],
        "tools": export([WEATHER], "anthropic").tools,
        "stream": False,
        "temperature": 0.5,
    }


async def test_tool_turns_become_tool_use_and_tool_result_blocks(backend: Backend) -> None:
    backend.push(json_reply(anthropic_message([{"type": "text", "text": "ok"}])))
    image = "data:image/png;base64,iVBORw0KGgo="
    messages: list[Message] = [
        {"id": "u", "role": "user", "content": "Look", "images": [image, "https://x.test/a.png"]},
        {
            "id": "a",
            "role": "assistant",
            "content": "Checking.",
            "calls": [
                {"id": "toolu_1", "name": "weather", "arguments": {"city": "Paris"}},
                {"id": "toolu_2", "name": "weather", "arguments": {"city": "Oslo"}},
            ],
        },
        {"id": "t1", "role": "tool", "content": '{"sky":"clear"}', "call": "toolu_1"},
        {"id": "t2", "role": "tool", "content": "no such city", "call": "toolu_2", "error": True},
        {"id": "u2", "role": "user", "content": "And?"},
    ]
    async with provider(backend) as model:
        await model.generate(messages, live())
    assert backend.requests[0].body["messages"] == [
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                },
                {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}},
                {"type": "text", "text": "Look"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "weather",
                    "input": {"city": "Paris"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"city": "Oslo"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"sky":"clear"}'},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "no such city",
                    "is_error": True,
                },
                {"type": "text", "text": "And?"},
            ],
        },
    ]


async def test_whole_answers_carry_tool_use_and_thinking(backend: Backend) -> None:
    blocks = [
        {"type": "thinking", "thinking": "need the weather", "signature": "c2ln"},
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Rome"}},
    ]
    backend.push(json_reply(anthropic_message(blocks)))
    async with provider(backend, thinking=2048) as model:
        result = await model.generate([user("?")], live(), [WEATHER], think=True)
    assert result == {
        "content": "Let me check.",
        "thinking": "need the weather",
        "tools": [{"id": "toolu_1", "name": "weather", "arguments": {"city": "Rome"}}],
        "usage": {"prompt": 20, "completion": 7, "total": 27},
    }
    assert backend.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.parametrize("size", [1, 9, 4096])
async def test_a_stream_cut_anywhere_gives_the_same_turn(backend: Backend, size: int) -> None:
    blocks = [
        {"type": "thinking", "thinking": "plan: look it up"},
        {"type": "text", "text": "Checking Zürich 😀"},
        {"type": "tool_use", "id": "toolu_a", "name": "weather", "json": '{"city": "Zürich"}'},
        {"type": "tool_use", "id": "toolu_b", "name": "weather", "json": ""},
    ]
    backend.push(stream_reply(rechunk(anthropic_stream(blocks, usage=(40, 11)), size)))
    async with provider(backend) as model:
        deltas, result = await consume(model.stream([user("?")], live(), [WEATHER]))
    assert "".join(d["text"] for d in deltas if d["type"] == "content") == "Checking Zürich 😀"
    assert "".join(d["text"] for d in deltas if d["type"] == "thinking") == "plan: look it up"
    assert result == {
        "content": "Checking Zürich 😀",
        "thinking": "plan: look it up",
        "tools": [
            {"id": "toolu_a", "name": "weather", "arguments": {"city": "Zürich"}},
            {"id": "toolu_b", "name": "weather", "arguments": {}},
        ],
        "usage": {"prompt": 40, "completion": 11, "total": 51},
    }
    assert backend.requests[0].body["stream"] is True


async def test_streaming_false_makes_stream_one_whole_call(backend: Backend) -> None:
    backend.push(json_reply(anthropic_message([{"type": "text", "text": "Whole."}])))
    async with provider(backend, streaming=False) as model:
        deltas, result = await consume(model.stream([user("?")], live()))
    assert deltas == [{"type": "content", "text": "Whole."}]
    assert result["content"] == "Whole."


@pytest.mark.parametrize(
    ("reply", "code", "status"),
    [
        (
            anthropic_error(401, "authentication_error", f"invalid x-api-key {KEY}"),
            "AUTHENTICATION",
            401,
        ),
        (anthropic_error(500, "api_error", "Internal server error"), "SERVER", 500),
        (anthropic_error(529, "overloaded_error", "Overloaded"), "SERVER", 529),
        (anthropic_error(400, "invalid_request_error", "max_tokens: too large"), "HTTP", 400),
        (anthropic_error(403, "permission_error", "not allowed"), "HTTP", 403),
    ],
)
async def test_http_errors_are_typed_and_never_hold_the_key(
    backend: Backend, reply: Reply, code: str, status: int
) -> None:
    backend.push(reply, reply)
    async with provider(backend) as model:
        with pytest.raises(ProviderError) as whole:
            await model.generate([user("?")], live())
        with pytest.raises(ProviderError) as streamed:
            await consume(model.stream([user("?")], live()))
    for error in (whole.value, streamed.value):
        assert error.code == code
        assert error.context is not None
        assert error.context["status"] == status
        assert KEY not in str(error)
    assert len(backend.requests) == 2


async def test_a_rate_limit_is_retried_and_then_reported(backend: Backend) -> None:
    limited = anthropic_error(429, "rate_limit_error", "Number of requests exceeded")
    limited.headers = {"retry-after": "0"}
    backend.push(limited, json_reply(anthropic_message([{"type": "text", "text": "ok"}])))
    backend.push(limited, limited)
    async with provider(backend, retries=1) as model:
        assert (await model.generate([user("?")], live()))["content"] == "ok"
        with pytest.raises(ProviderError) as error:
            await model.generate([user("?")], live())
    assert error.value.code == "RATE_LIMIT"
    assert error.value.context == {
        "status": 429,
        "type": "rate_limit_error",
        "attempts": 2,
        "retry": 0.0,
    }
    assert len(backend.requests) == 4


async def test_an_error_event_inside_a_stream_is_typed(backend: Backend) -> None:
    events = anthropic_stream([{"type": "text", "text": "Hel"}], stop=False)[:4]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    backend.push(stream_reply([*events, sse(error, "error")]))
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match="Overloaded") as failure:
            await consume(model.stream([user("?")], live()))
    assert failure.value.code == "SERVER"
    assert failure.value.context == {"type": "overloaded_error"}


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(body=b"{"), "not valid JSON"),
        (json_reply({"type": "completion", "completion": "hi"}), "not a message"),
        (
            json_reply(anthropic_message([{"type": "text", "text": "x"}], role="user")),
            "unknown message role",
        ),
        (
            json_reply(anthropic_message([{"type": "tool_use", "name": "weather", "input": {}}])),
            "tool call 0 has no id",
        ),
        (
            json_reply(
                anthropic_message([{"type": "tool_use", "id": "t", "name": "w", "input": 3}])
            ),
            "not a JSON object",
        ),
    ],
)
async def test_malformed_whole_answers_are_protocol_errors(
    backend: Backend, reply: Reply, message: str
) -> None:
    backend.push(reply)
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match=message) as error:
            await model.generate([user("?")], live())
    assert error.value.code == "PROTOCOL"


@pytest.mark.parametrize(
    ("events", "message"),
    [
        (anthropic_stream([{"type": "text", "text": "cut"}], stop=False), "before message_stop"),
        (
            anthropic_stream([{"type": "tool_use", "id": "t", "name": "w", "json": '{"a": '}]),
            "not valid JSON",
        ),
        (anthropic_stream([{"type": "tool_use", "name": "w", "json": "{}"}]), "has no id"),
        (anthropic_stream([{"type": "text", "text": "x"}])[1:], "no message_start"),
        ([sse("{oops", "message_start")], "not valid JSON"),
        (
            [sse({"type": "message_start", "message": {"role": "robot"}}, "message_start")],
            "unknown message role",
        ),
        (
            [
                *anthropic_stream([{"type": "text", "text": "x"}])[:3],
                sse(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "input_json_delta", "partial_json": "{}"},
                    }
                ),
            ],
            "not a tool_use block",
        ),
    ],
)
async def test_malformed_streams_are_protocol_errors(
    backend: Backend, events: list[bytes], message: str
) -> None:
    backend.push(stream_reply(events))
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match=message) as error:
            await consume(model.stream([user("?")], live()))
    assert error.value.code == "PROTOCOL"


async def test_ten_megabytes_are_refused_by_default(backend: Backend) -> None:
    big = "y" * (10 * 1024 * 1024)
    backend.push(
        stream_reply(anthropic_stream([{"type": "text", "text": big}], split=65536)),
        json_reply(anthropic_message([{"type": "text", "text": big}])),
    )
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match="exceeds") as error:
            await consume(model.stream([user("?")], live()))
    assert error.value.code == "PROTOCOL"
    async with provider(backend, limit=32 * 1024 * 1024) as roomy:
        assert (await roomy.generate([user("?")], live()))["content"] == big


async def test_an_abort_mid_stream_keeps_the_partial_text(backend: Backend) -> None:
    events = anthropic_stream([{"type": "text", "text": "Hello there"}], split=5, stop=False)
    backend.push(stream_reply(events[:-1], stall=True))
    controller = AbortController()
    async with provider(backend) as model:
        with pytest.raises(ProviderAbortError) as error:
            await read_until(model.stream([user("?")], controller.signal), "Hello", controller)
    assert error.value.partial == {
        "content": "Hello",
        "usage": {"prompt": 20, "completion": 1, "total": 21},
    }


def test_system_messages_merge_and_empty_blocks_are_left_out() -> None:
    model = create_anthropic_provider(model="m")
    body = model.request(
        [
            {"id": "1", "role": "system", "content": "One."},
            {"id": "2", "role": "system", "content": "Two."},
            {"id": "3", "role": "user", "content": "Hi"},
            {"id": "4", "role": "assistant", "content": ""},
            {"id": "5", "role": "user", "content": "Again"},
        ]
    )
    assert body["system"] == "One.\n\nTwo."
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": "Again"}],
        }
    ]
    with pytest.raises(ValueError, match="max_tokens"):
        create_anthropic_provider(model="m", max_tokens=0)
    with pytest.raises(ProviderError, match="base64") as error:
        model.request(
            [{"id": "u", "role": "user", "content": "", "images": ["data:image/png;base64,!!"]}]
        )
    assert error.value.code == "REQUEST"
