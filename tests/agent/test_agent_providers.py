"""The agent loop over the real HTTP providers and a loopback server: tool turns on both wire
formats, partial text kept when a streamed turn is stopped, and hostile answers as typed
errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
import pytest

from agent.servers import (
    Backend,
    Reply,
    anthropic_stream,
    json_reply,
    openai_call,
    openai_completion,
    openai_stream,
    stream_reply,
)
from orkestrel.abort import AbortController, AbortSignal
from orkestrel.agent import (
    AgentResult,
    Message,
    ProviderDelta,
    ProviderError,
    ProviderInterface,
    ProviderResult,
    create_agent,
    create_anthropic_provider,
    create_openai_provider,
)
from orkestrel.tool import ToolDefinition, ToolManager, create_tool

pytestmark = pytest.mark.anyio


def toolbox() -> ToolManager:
    tools = ToolManager()
    tools.add(
        create_tool(
            name="add",
            description="Add two integers.",
            parameters={
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
            execute=lambda args: {"sum": args["a"] + args["b"]},
        )
    )
    return tools


async def test_the_openai_tool_loop_feeds_answers_back_in_call_order(backend: Backend) -> None:
    backend.push(
        stream_reply(
            openai_stream([], [("call_1", "add", '{"a": 2, "b": 3}'), ("call_2", "nope", "{}")])
        ),
        stream_reply(openai_stream(["It is ", "5."], usage=(40, 4))),
    )
    async with create_openai_provider(model="m", base_url=f"{backend.url}/v1") as model:
        agent = create_agent(model, system="Use tools.", tools=toolbox())
        agent.context.messages.add({"role": "user", "content": "2+3?"})
        result = await agent.generate()
    assert result == AgentResult(
        "It is 5.", False, None, {"prompt": 52, "completion": 9, "total": 61}
    )
    second = backend.requests[1].body
    assert second["messages"][1:] == [
        {"role": "user", "content": "2+3?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a":2,"b":3}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "nope", "arguments": "{}"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"sum":5}'},
        {"role": "tool", "tool_call_id": "call_2", "content": "tool not found: nope"},
    ]
    assert [tool["function"]["name"] for tool in second["tools"]] == ["add"]


async def test_the_anthropic_tool_loop_feeds_tool_results_back(backend: Backend) -> None:
    backend.push(
        stream_reply(
            anthropic_stream(
                [
                    {"type": "text", "text": "Adding."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "add",
                        "json": '{"a": 4, "b": 5}',
                    },
                ]
            )
        ),
        stream_reply(anthropic_stream([{"type": "text", "text": "Nine."}])),
    )
    async with create_anthropic_provider(model="c", base_url=backend.url, api_key="k") as model:
        agent = create_agent(model, tools=toolbox())
        agent.context.messages.add({"role": "user", "content": "4+5?"})
        result = await agent.generate()
    assert result.content == "Nine."
    assert not result.partial
    assert backend.requests[1].body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "4+5?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Adding."},
                {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 4, "b": 5}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"sum":9}'}],
        },
    ]


class Watcher:
    """Wraps a provider's stream and aborts the run once the text so far reads `stop_at`."""

    def __init__(self, inner: Any, controller: AbortController, stop_at: str) -> None:
        self.inner, self.controller, self.stop_at = inner, controller, stop_at
        self.id, self.name = inner.id, inner.name

    async def generate(self, *args: Any, **kwargs: Any) -> ProviderResult:
        result: ProviderResult = await self.inner.generate(*args, **kwargs)
        return result

    def stream(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> Any:
        source = self.inner.stream(messages, signal, tools, think=think)
        watcher = self

        class Relay:
            result = property(lambda _: source.result)

            def __aiter__(self) -> AsyncIterator[ProviderDelta]:
                return self.run()

            async def run(self) -> AsyncIterator[ProviderDelta]:
                text = ""
                async for delta in source:
                    text += delta["text"]
                    yield delta
                    if text == watcher.stop_at:
                        watcher.controller.abort("enough")

            async def aclose(self) -> None:
                await source.aclose()

        return Relay()


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_stopping_a_streamed_turn_keeps_its_partial_text(backend: Backend, wire: str) -> None:
    if wire == "openai":
        chunks = openai_stream(["Draft", " one", " never"], done=False)[:3]
        model: Any = create_openai_provider(model="m", base_url=f"{backend.url}/v1")
    else:
        chunks = anthropic_stream([{"type": "text", "text": "Draft one never"}], split=9)[:4]
        model = create_anthropic_provider(model="c", base_url=backend.url)
    backend.push(stream_reply(chunks, stall=True))
    controller = AbortController()
    async with model:
        provider: ProviderInterface = Watcher(model, controller, "Draft one")
        agent = create_agent(provider)
        agent.context.messages.add({"role": "user", "content": "write"})
        with anyio.fail_after(30):
            result = await agent.generate(signal=controller.signal)
    assert result.content == "Draft one"
    assert result.partial is True
    assert agent.context.messages.messages()[-1] == {
        **agent.context.messages.messages()[-1],
        "role": "assistant",
        "content": "Draft one",
    }


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (json_reply(openai_completion(None, [openai_call("c1", "add", "{bad json")])), "PROTOCOL"),
        (json_reply(openai_completion("x" * (10 * 1024 * 1024))), "PROTOCOL"),
        (json_reply(openai_completion("hi", role="system")), "PROTOCOL"),
        (
            json_reply(
                openai_completion(
                    None, [{"type": "function", "function": {"name": "add", "arguments": "{}"}}]
                )
            ),
            "PROTOCOL",
        ),
        (Reply(status=401, body=b'{"error": {"message": "no"}}'), "AUTHENTICATION"),
    ],
)
async def test_hostile_answers_fail_the_run_with_a_typed_error(
    backend: Backend, reply: Reply, code: str
) -> None:
    backend.push(reply)
    async with create_openai_provider(
        model="m", base_url=f"{backend.url}/v1", streaming=False
    ) as model:
        agent = create_agent(model, tools=toolbox())
        with anyio.fail_after(60), pytest.raises(ProviderError) as error:
            await agent.generate()
    assert error.value.code == code
    assert agent.status == "error"
    assert len(backend.requests) == 1, "nothing ran after the refusal"
