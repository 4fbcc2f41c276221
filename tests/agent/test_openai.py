"""`OpenAICompatibleProvider` against a loopback server that speaks Chat Completions: request
bodies, whole and streamed answers, tool calls split across chunks, usage, reasoning, typed
errors, bounded retries, and cancellation that keeps the partial text."""

from __future__ import annotations

import json
import socket
from typing import Any

import anyio
import pytest

from agent.helpers import WEATHER, consume, live, read_until, user
from agent.servers import (
    Backend,
    Reply,
    json_reply,
    openai_call,
    openai_completion,
    openai_error,
    openai_stream,
    rechunk,
    sse,
    stream_reply,
)
from orkestrel.abort import AbortController
from orkestrel.agent import (
    Message,
    ProviderAbortError,
    ProviderError,
    create_openai_provider,
)
from orkestrel.agent.providers import OpenAICompatibleProvider
from orkestrel.tool import ToolDefinition, export

pytestmark = pytest.mark.anyio

KEY = "sk-test-0123456789abcdef"


def provider(backend: Backend, **options: Any) -> OpenAICompatibleProvider:
    return create_openai_provider(
        model="gpt-test", base_url=f"{backend.url}/v1", api_key=KEY, **options
    )


async def test_a_whole_answer_and_its_request(backend: Backend) -> None:
    backend.push(json_reply(openai_completion("Sunny.", usage=(12, 5))))
    async with provider(backend, body={"temperature": 0.2}) as model:
        result = await model.generate([user("Weather?")], live(), [WEATHER])
    assert result == {"content": "Sunny.", "usage": {"prompt": 12, "completion": 5, "total": 17}}
    [request] = backend.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "Weather?"}],
        "tools": export([WEATHER], "openai").tools,
        "stream": False,
        "temperature": 0.2,
    }


async def test_every_message_kind_is_rendered_for_chat_completions(backend: Backend) -> None:
    backend.push(json_reply(openai_completion("ok")))
    image = "data:image/png;base64,iVBORw0KGgo="
    messages: list[Message] = [
        {"id": "s", "role": "system", "content": "Be brief."},
        {"id": "u", "role": "user", "content": "Look", "images": [image]},
        {
            "id": "a",
            "role": "assistant",
            "content": "",
            "calls": [{"id": "call_1", "name": "weather", "arguments": {"city": "Paris"}}],
        },
        {"id": "t", "role": "tool", "content": '{"sky":"clear"}', "call": "call_1"},
        {"id": "t2", "role": "tool", "content": "tool not found: x", "call": "c2", "error": True},
        {"id": "b", "role": "assistant", "content": "Clear."},
    ]
    async with provider(backend) as model:
        await model.generate(messages, live())
    assert backend.requests[0].body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look"},
                {"type": "image_url", "image_url": {"url": image}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"sky":"clear"}'},
        {"role": "tool", "tool_call_id": "c2", "content": "tool not found: x"},
        {"role": "assistant", "content": "Clear."},
    ]
    assert "tools" not in backend.requests[0].body


async def test_whole_answers_carry_tool_calls_reasoning_and_think_spans(backend: Backend) -> None:
    calls = [openai_call("call_1", "weather", {"city": "Paris"}), openai_call("call_2", "time", "")]
    backend.push(
        json_reply(openai_completion(None, calls, usage=None)),
        json_reply(openai_completion("<think>cold front</think>\n\nRain.", usage=None)),
        json_reply(openai_completion("Rain.", extra={"reasoning_content": "check the map"})),
    )
    async with provider(backend) as model:
        first = await model.generate([user("?")], live(), [WEATHER])
        second = await model.generate([user("?")], live())
        third = await model.generate([user("?")], live())
    assert first == {
        "content": "",
        "tools": [
            {"id": "call_1", "name": "weather", "arguments": {"city": "Paris"}},
            {"id": "call_2", "name": "time", "arguments": {}},
        ],
    }
    assert second == {"content": "Rain.", "thinking": "cold front"}
    assert third["thinking"] == "check the map"
    assert third["content"] == "Rain."


@pytest.mark.parametrize("size", [1, 7, 4096])
async def test_a_stream_cut_anywhere_gives_the_same_turn(backend: Backend, size: int) -> None:
    chunks = openai_stream(
        ["Héllo", " wörld", " 😀"],
        [("call_a", "weather", '{"city": "Zürich"}'), ("call_b", "weather", '{"city": "Oslo"}')],
        usage=(30, 9),
    )
    backend.push(stream_reply(rechunk(chunks, size)))
    async with provider(backend) as model:
        deltas, result = await consume(model.stream([user("?")], live(), [WEATHER]))
    assert "".join(d["text"] for d in deltas if d["type"] == "content") == "Héllo wörld 😀"
    assert result == {
        "content": "Héllo wörld 😀",
        "tools": [
            {"id": "call_a", "name": "weather", "arguments": {"city": "Zürich"}},
            {"id": "call_b", "name": "weather", "arguments": {"city": "Oslo"}},
        ],
        "usage": {"prompt": 30, "completion": 9, "total": 39},
    }
    body = backend.requests[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}


async def test_a_stream_separates_reasoning_from_the_answer(backend: Backend) -> None:
    chunks = openai_stream(["<thi", "nk>plan", " it</th", "ink>\n\nDone."], reasoning=["r1 "])
    backend.push(stream_reply(chunks))
    async with provider(backend) as model:
        deltas, result = await consume(model.stream([user("?")], live()))
    assert result["content"] == "Done."
    assert result["thinking"] == "r1 \n\nplan it"
    assert "".join(d["text"] for d in deltas if d["type"] == "content") == "Done."
    assert next(d for d in deltas if d["type"] == "thinking") == {"type": "thinking", "text": "r1 "}


async def test_streaming_false_makes_stream_one_whole_call(backend: Backend) -> None:
    backend.push(json_reply(openai_completion("Whole.")))
    async with provider(backend, streaming=False) as model:
        deltas, result = await consume(model.stream([user("?")], live()))
    assert deltas == [{"type": "content", "text": "Whole."}]
    assert result["content"] == "Whole."
    assert backend.requests[0].body["stream"] is False


async def test_think_body_is_merged_only_when_asked(backend: Backend) -> None:
    backend.push(json_reply(openai_completion("a")), json_reply(openai_completion("b")))
    options = {"think_body": {"reasoning_effort": "high"}, "body": {"seed": 7, "stream": None}}
    async with provider(backend, **options) as model:
        await model.generate([user("?")], live(), think=True)
        await model.generate([user("?")], live(), think=False)
    first, second = (request.body for request in backend.requests)
    assert first["reasoning_effort"] == "high"
    assert first["seed"] == 7
    assert "stream" not in first
    assert "reasoning_effort" not in second


@pytest.mark.parametrize(
    ("reply", "code", "status"),
    [
        (
            openai_error(401, f"Incorrect API key provided: {KEY}", "invalid_request_error"),
            "AUTHENTICATION",
            401,
        ),
        (openai_error(500, "The server had an error", "server_error"), "SERVER", 500),
        (openai_error(503, "overloaded", "server_error"), "SERVER", 503),
        (openai_error(400, "Invalid 'messages'", "invalid_request_error"), "HTTP", 400),
        (Reply(status=502, body=b"<html>bad gateway</html>"), "SERVER", 502),
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
        assert str(error).startswith(f"provider returned {status}: ")
        assert KEY not in str(error)
        assert KEY not in repr(error)
    assert len(backend.requests) == 2, "only a 429 is retried"


async def test_a_rate_limit_is_retried_after_retry_after(backend: Backend) -> None:
    limited = openai_error(429, "Rate limit reached", "requests", "rate_limit_exceeded")
    limited.headers = {"retry-after": "0"}
    backend.push(limited, limited, json_reply(openai_completion("Finally.")))
    async with provider(backend, retries=2) as model:
        result = await model.generate([user("?")], live())
    assert result["content"] == "Finally."
    assert len(backend.requests) == 3


async def test_a_rate_limit_that_outlasts_the_retries_is_rate_limit(backend: Backend) -> None:
    limited = openai_error(429, "Rate limit reached", "requests", "rate_limit_exceeded")
    limited.headers = {"retry-after-ms": "5"}
    backend.push(limited, limited, limited)
    async with provider(backend, retries=2) as model:
        with pytest.raises(ProviderError) as error:
            await model.generate([user("?")], live())
    assert error.value.code == "RATE_LIMIT"
    assert error.value.context == {
        "status": 429,
        "type": "requests",
        "attempts": 3,
        "retry": 0.005,
    }
    assert len(backend.requests) == 3


async def test_a_retry_after_beyond_the_wait_fails_at_once(backend: Backend) -> None:
    limited = openai_error(429, "Rate limit reached", "tokens")
    limited.headers = {"retry-after": "3600"}
    backend.push(limited)
    async with provider(backend, retries=5, wait=30) as model:
        with pytest.raises(ProviderError) as error:
            await model.generate([user("?")], live())
    assert error.value.code == "RATE_LIMIT"
    assert error.value.context["retry"] == 3600.0
    assert len(backend.requests) == 1


async def test_an_abort_during_a_retry_wait_is_an_abort(backend: Backend) -> None:
    limited = openai_error(429, "Rate limit reached", "tokens")
    limited.headers = {"retry-after": "20"}
    backend.push(limited)
    controller = AbortController()
    async with provider(backend, retries=1, wait=60) as model:

        async def stop() -> None:
            await backend.wait(backend.received)
            controller.abort("enough")

        async with anyio.create_task_group() as group:
            group.start_soon(stop)
            with pytest.raises(ProviderAbortError) as error:
                await model.generate([user("?")], controller.signal)
    assert error.value.partial == {"content": ""}
    assert error.value.reason == "enough"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(body=b"not json at all"), "the response body is not valid JSON"),
        (Reply(body=b'{"choices": [{"message": {"content": NaN}}]}'), "not valid JSON"),
        (Reply(body=b"[" * 100_000 + b"]" * 100_000), "not valid JSON"),
        (json_reply({"object": "chat.completion", "choices": []}), "the response has no choices"),
        (json_reply(openai_completion("hi", role="robot")), "unknown message role"),
        (
            json_reply(openai_completion(None, [{"type": "function", "function": {"name": "w"}}])),
            "tool call 0 has no id",
        ),
        (
            json_reply(openai_completion(None, [openai_call("c1", "weather", '{"city": "Par')])),
            "arguments of tool call 'c1' is not valid JSON",
        ),
        (
            json_reply(openai_completion(None, [openai_call("c1", "weather", "[1, 2]")])),
            "tool call 'c1' has arguments that are not a JSON object",
        ),
        (json_reply(openai_completion(None, [openai_call("c1", "", "{}")])), "has no name"),
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
    ("chunks", "message"),
    [
        ([sse("{not json"), sse("[DONE]")], "a stream chunk is not valid JSON"),
        ([sse([1, 2]), sse("[DONE]")], "not a JSON object"),
        (openai_stream(["a"], done=False)[:-2], "the stream ended before \\[DONE\\]"),
        (openai_stream([], [("call_x", "weather", '{"city": ')]), "not valid JSON"),
        (openai_stream([], [("", "weather", "{}")]), "tool call 0 has no id"),
        (
            [sse({"choices": [{"index": 0, "delta": {"role": "user", "content": "x"}}]})],
            "unknown message role",
        ),
        ([b"data: \xff\xfe\n\n"], "not UTF-8"),
    ],
)
async def test_malformed_streams_are_protocol_errors(
    backend: Backend, chunks: list[bytes], message: str
) -> None:
    backend.push(stream_reply(chunks))
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match=message) as error:
            await consume(model.stream([user("?")], live(), [WEATHER]))
    assert error.value.code == "PROTOCOL"


async def test_an_error_inside_a_stream_is_typed(backend: Backend) -> None:
    failure = {"error": {"message": "The model is overloaded", "type": "server_error"}}
    backend.push(stream_reply([*openai_stream(["par"], done=False)[:2], sse(failure)]))
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match="overloaded") as error:
            await consume(model.stream([user("?")], live()))
    assert error.value.code == "SERVER"


async def test_ten_megabytes_are_refused_by_default_and_read_when_allowed(
    backend: Backend,
) -> None:
    big = "x" * (10 * 1024 * 1024)
    backend.push(
        json_reply(openai_completion(big)),
        stream_reply(openai_stream([big[i : i + 65536] for i in range(0, len(big), 65536)])),
        json_reply(openai_completion(big)),
    )
    async with provider(backend) as model:
        with pytest.raises(ProviderError, match="exceeds 8388608 bytes") as whole:
            await model.generate([user("?")], live())
        with pytest.raises(ProviderError, match="exceeds 8388608 bytes") as streamed:
            await consume(model.stream([user("?")], live()))
    assert whole.value.code == streamed.value.code == "PROTOCOL"
    async with provider(backend, limit=32 * 1024 * 1024) as roomy:
        result = await roomy.generate([user("?")], live())
    assert result["content"] == big


async def test_unknown_roles_and_unanswerable_tool_messages_are_refused_before_sending(
    backend: Backend,
) -> None:
    async with provider(backend) as model:
        robot: Any = {"id": "r", "role": "robot", "content": "beep"}
        with pytest.raises(ProviderError, match="unknown message role") as role:
            await model.generate([robot], live())
        orphan: Message = {"id": "t", "role": "tool", "content": "3"}
        with pytest.raises(ProviderError, match="needs the id of the call") as call:
            await model.generate([orphan], live())
        dotted: ToolDefinition = {"name": "mcp.tool", "parameters": {"type": "object"}}
        with pytest.raises(ProviderError, match="tools cannot be sent") as tool:
            await model.generate([user("?")], live(), [dotted])
    assert role.value.code == call.value.code == tool.value.code == "REQUEST"
    assert backend.requests == []


async def test_an_unreachable_backend_is_a_network_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = create_openai_provider(model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY)
    async with model:
        with pytest.raises(ProviderError, match="failed") as error:
            await model.generate([user("?")], live())
    assert error.value.code == "NETWORK"
    assert KEY not in str(error.value)


async def test_a_stalled_stream_hits_the_read_timeout(backend: Backend) -> None:
    backend.push(stream_reply(openai_stream(["Hel"], done=False)[:2], stall=True))
    async with provider(backend, timeout=0.3) as model:
        with pytest.raises(ProviderError, match="reading the stream failed") as error:
            await consume(model.stream([user("?")], live()))
    assert error.value.code == "NETWORK"


async def test_an_abort_mid_stream_keeps_the_partial_text(backend: Backend) -> None:
    chunks = openai_stream(["Hel", "lo"], [("call_1", "weather", '{"city": "Rome"}')], done=False)
    backend.push(stream_reply(chunks[:-2], stall=True))
    controller = AbortController()
    async with provider(backend) as model:
        stream = model.stream([user("?")], controller.signal, [WEATHER])
        with pytest.raises(ProviderAbortError) as error:
            await read_until(stream, "Hello", controller, "user stop")
    assert error.value.partial == {"content": "Hello"}
    assert error.value.reason == "user stop"
    await backend.wait(backend.disconnected)


def test_a_partial_keeps_the_tool_calls_that_are_complete() -> None:
    from orkestrel.agent.providers.http import Backend as Endpoint
    from orkestrel.agent.providers.http import Event
    from orkestrel.agent.providers.openai import OpenAIStream

    endpoint = Endpoint(
        url="http://127.0.0.1:9/v1",
        headers={},
        client=None,
        secret=None,
        retries=0,
        wait=0,
        limit=1024,
        timeout=1,
        deadline=1,
    )
    stream = OpenAIStream(endpoint, {}, live())
    chunks = openai_stream(
        ["Hi"],
        [("call_1", "weather", '{"city": "Rome"}'), ("call_2", "weather", '{"ci')],
        usage=None,
        done=False,
    )
    for chunk in chunks[:-1]:
        data = chunk.decode().removeprefix("data: ").strip()
        stream.handle(Event("message", data))
    assert stream.partial() == {
        "content": "Hi",
        "tools": [{"id": "call_1", "name": "weather", "arguments": {"city": "Rome"}}],
    }


async def test_an_abort_while_waiting_for_bytes_stops_the_read(backend: Backend) -> None:
    backend.push(stream_reply(openai_stream(["Par", "tial"], done=False)[:3], stall=True))
    controller = AbortController()
    async with provider(backend) as model:
        stream = model.stream([user("?")], controller.signal)

        async def later() -> None:
            await anyio.sleep(0.05)
            controller.abort()

        async def read() -> None:
            async for delta in stream:
                if delta["text"] == "tial":
                    group.start_soon(later)

        async with anyio.create_task_group() as group:
            with pytest.raises(ProviderAbortError) as error:
                await read()
    assert error.value.partial["content"] == "Partial"


async def test_an_aborted_signal_sends_nothing(backend: Backend) -> None:
    controller = AbortController()
    controller.abort()
    async with provider(backend) as model:
        with pytest.raises(ProviderAbortError):
            await model.generate([user("?")], controller.signal)
        with pytest.raises(ProviderAbortError):
            await consume(model.stream([user("?")], controller.signal))
    assert backend.requests == []


async def test_a_caller_owned_client_is_left_open(backend: Backend) -> None:
    import httpx

    backend.push(json_reply(openai_completion("a")))
    async with httpx.AsyncClient() as client:
        model = provider(backend, client=client)
        await model.generate([user("?")], live())
        await model.aclose()
        assert not client.is_closed
    assert repr(model) == f"OpenAICompatibleProvider(model='gpt-test', base_url='{backend.url}/v1')"
    assert KEY not in repr(model)


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="model"):
        create_openai_provider(model="")
    with pytest.raises(ValueError, match="base_url"):
        create_openai_provider(model="m", base_url="ftp://x")
    with pytest.raises(ValueError, match="retries"):
        create_openai_provider(model="m", retries=-1)
    with pytest.raises(ValueError, match="limit"):
        create_openai_provider(model="m", limit=0)
    body = create_openai_provider(model="m").request([user("hi")], stream=True)
    assert json.loads(json.dumps(body)) == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
