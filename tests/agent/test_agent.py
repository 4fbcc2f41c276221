"""The agent loop over a scripted provider: tool turns, failures fed back, the turn limit,
cancellation that settles partial, genuine errors, and one run at a time."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from orkestrel.abort import AbortController
from orkestrel.agent import (
    CANCELLED_ANSWER,
    TOOL_RESULT_UNENCODABLE,
    AgentError,
    AgentResult,
    ProviderAbortError,
    ProviderError,
    ScriptedProvider,
    create_agent,
)
from orkestrel.tool import ToolManager, create_tool

pytestmark = pytest.mark.anyio


def calculator() -> ToolManager:
    tools = ToolManager()
    tools.add(
        create_tool(
            name="add",
            description="Add two numbers.",
            parameters={"type": "object", "properties": {"a": {}, "b": {}}},
            execute=lambda args: args["a"] + args["b"],
        )
    )
    tools.add(create_tool(name="echo", execute=lambda args: args))
    return tools


def call(id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": id, "name": name, "arguments": arguments}


@pytest.mark.parametrize("stream", [False, True])
async def test_two_tools_in_one_turn_then_an_answer(stream: bool) -> None:
    provider = ScriptedProvider(
        [
            {
                "content": "Let me add.",
                "tools": [call("c1", "add", a=2, b=3), call("c2", "echo", x=[1])],
            },
            "The sum is 5.",
        ],
        stream=stream,
    )
    agent = create_agent(provider, system="Be exact.", tools=calculator())
    agent.context.messages.add({"role": "user", "content": "2+3?"})
    assert agent.status == "idle"
    result = await agent.generate()
    assert result == AgentResult(content="The sum is 5.", partial=False)
    assert agent.status == "done"
    second = provider.calls[1]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "tool"]
    assert second[2]["calls"] == [call("c1", "add", a=2, b=3), call("c2", "echo", x=[1])]
    assert [(m["call"], m["content"]) for m in second[3:]] == [("c1", "5"), ("c2", '{"x":[1]}')]
    assert provider.calls[0]["tools"] is not None
    assert [tool["name"] for tool in provider.calls[0]["tools"]] == ["add", "echo"]
    stored = agent.context.messages.messages()
    assert [m["role"] for m in stored] == ["user", "assistant", "tool", "tool", "assistant"]
    assert stored[-1]["content"] == "The sum is 5."


async def test_an_unknown_tool_gets_the_failure_text_and_the_model_recovers() -> None:
    provider = ScriptedProvider(
        [
            {"content": "", "tools": [call("c1", "multiply", a=2, b=3)]},
            {"content": "", "tools": [call("c2", "add", a=2, b=3)]},
            "It is 5.",
        ]
    )
    agent = create_agent(provider, tools=calculator())
    agent.context.messages.add({"role": "user", "content": "2*3?"})
    result = await agent.generate()
    assert result.content == "It is 5."
    assert not result.partial
    failure = provider.calls[1]["messages"][-1]
    assert failure == {
        **failure,
        "role": "tool",
        "content": "tool not found: multiply",
        "call": "c1",
        "error": True,
    }
    assert provider.calls[2]["messages"][-1]["content"] == "5"


async def test_the_limit_stops_a_model_that_never_stops_calling_tools() -> None:
    provider = ScriptedProvider(
        [{"content": f"round {n}", "tools": [call(f"c{n}", "echo", n=n)]} for n in range(10)]
    )
    agent = create_agent(provider, tools=calculator(), limit=3)
    result = await agent.generate()
    assert result == AgentResult(content="round 2", partial=True)
    assert len(provider.calls) == 3
    assert provider.remaining == 7
    assert agent.status == "done"


async def test_a_zero_limit_never_calls_the_provider() -> None:
    provider = ScriptedProvider(["never"])
    result = await create_agent(provider, limit=0).generate()
    assert result == AgentResult(content="", partial=False)
    assert provider.calls == []


async def test_an_already_aborted_signal_never_reaches_the_provider() -> None:
    provider = ScriptedProvider(["never"], stream=True)
    controller = AbortController()
    controller.abort()
    assert await create_agent(provider).generate(signal=controller.signal) == AgentResult(
        "", partial=True
    )
    assert await create_agent(provider, signal=controller.signal).generate() == AgentResult(
        "", partial=True
    )
    assert provider.calls == []


async def test_abort_mid_stream_keeps_the_streamed_text() -> None:
    agent: Any = None

    async def speak(messages: Any, tools: Any, signal: Any) -> AsyncIterator[str]:
        yield "Hel"
        yield "lo"
        agent.abort("stop")
        await anyio.sleep_forever()
        yield "never"

    provider = ScriptedProvider([speak], stream=True)
    agent = create_agent(provider)
    agent.context.messages.add({"role": "user", "content": "hi"})
    result = await agent.generate()
    assert result == AgentResult(content="Hello", partial=True)
    assert agent.status == "done"
    assert agent.context.messages.messages()[-1]["content"] == "Hello"


async def test_a_timeout_settles_partial_with_what_was_streamed() -> None:
    async def slow(messages: Any, tools: Any, signal: Any) -> AsyncIterator[str]:
        yield "Partial answer"
        await anyio.sleep_forever()
        yield "never"

    agent = create_agent(ScriptedProvider([slow], stream=True), timeout=300)
    result = await agent.generate()
    assert result == AgentResult(content="Partial answer", partial=True)


async def test_a_provider_abort_error_keeps_its_partial() -> None:
    async def parked(messages: Any, tools: Any, signal: Any) -> Any:
        await signal.wait()
        raise ProviderAbortError(
            {
                "content": "half",
                "thinking": "hmm",
                "usage": {"prompt": 1, "completion": 2, "total": 3},
            }
        )

    controller = AbortController()
    agent = create_agent(ScriptedProvider([parked]))

    async def stop() -> None:
        await anyio.sleep(0.05)
        controller.abort()

    async with anyio.create_task_group() as group:
        group.start_soon(stop)
        result = await agent.generate(signal=controller.signal)
    assert result == AgentResult("half", True, "hmm", {"prompt": 1, "completion": 2, "total": 3})


async def test_an_abort_while_tools_run_answers_every_call() -> None:
    started = anyio.Event()
    tools = ToolManager()

    async def hang(args: Any) -> Any:
        started.set()
        await anyio.sleep_forever()

    tools.add(create_tool(name="hang", execute=hang))
    provider = ScriptedProvider([{"content": "", "tools": [call("h1", "hang")]}])
    agent = create_agent(provider, tools=tools)

    async def stop() -> None:
        await started.wait()
        agent.abort()

    async with anyio.create_task_group() as group:
        group.start_soon(stop)
        result = await agent.generate()
    assert result.partial is True
    last = agent.context.messages.messages()[-1]
    assert (last["role"], last["content"], last["call"], last["error"]) == (
        "tool",
        CANCELLED_ANSWER,
        "h1",
        True,
    )


async def test_genuine_provider_errors_raise_by_identity() -> None:
    failure = ProviderError("SERVER", "provider returned 500: boom")
    provider = ScriptedProvider([failure, "recovered"])
    agent = create_agent(provider)
    with pytest.raises(ProviderError) as error:
        await agent.generate()
    assert error.value is failure
    assert agent.status == "error"
    assert (await agent.generate()).content == "recovered"
    assert agent.status == "done"


async def test_an_exhausted_script_is_a_script_error() -> None:
    with pytest.raises(ProviderError, match="script exhausted") as error:
        await create_agent(ScriptedProvider([])).generate()
    assert error.value.code == "SCRIPT"


async def test_a_second_concurrent_run_is_refused_before_any_change() -> None:
    release, entered = anyio.Event(), anyio.Event()

    async def wait(messages: Any, tools: Any, signal: Any) -> str:
        entered.set()
        await release.wait()
        return "first"

    provider = ScriptedProvider([wait, "unused"])
    agent = create_agent(provider, id="solo")
    results: list[AgentResult] = []
    async with anyio.create_task_group() as group:

        async def first() -> None:
            results.append(await agent.generate())

        group.start_soon(first)
        await entered.wait()
        assert agent.status == "running"
        before = agent.context.messages.count
        with pytest.raises(AgentError, match="agent 'solo' is already running") as error:
            await agent.generate()
        assert error.value.code == "CONCURRENCY"
        assert error.value.context == {"agent": "solo"}
        assert agent.context.messages.count == before
        assert agent.status == "running"
        release.set()
    assert results == [AgentResult("first")]
    assert len(provider.calls) == 1


async def test_self_recursion_through_a_tool_is_refused_and_reported_to_the_model() -> None:
    tools = ToolManager()
    agent: Any = None

    async def recurse(args: Any) -> Any:
        return (await agent.generate()).content

    tools.add(create_tool(name="self", execute=recurse))
    provider = ScriptedProvider([{"content": "", "tools": [call("r1", "self")]}, "gave up"])
    agent = create_agent(provider, id="loop", tools=tools)
    result = await agent.generate()
    assert result.content == "gave up"
    answer = provider.calls[1]["messages"][-1]
    assert answer["content"] == "agent 'loop' is already running"
    assert answer["error"] is True
    assert len(provider.calls) == 2


async def test_tool_values_are_encoded_as_compact_json() -> None:
    class Opaque:
        pass

    tools = ToolManager()
    tools.add(create_tool(name="text", execute=lambda args: "plain text"))
    tools.add(create_tool(name="nan", execute=lambda args: {"x": math.nan, "y": (1, 2)}))
    tools.add(create_tool(name="opaque", execute=lambda args: Opaque()))
    tools.add(create_tool(name="none", execute=lambda args: None))
    calls = [call("a", "text"), call("b", "nan"), call("c", "opaque"), call("d", "none")]
    provider = ScriptedProvider([{"content": "", "tools": calls}, "done"])
    await create_agent(provider, tools=tools).generate()
    answers = provider.calls[1]["messages"][-4:]
    assert [(m["content"], m.get("error", False)) for m in answers] == [
        ("plain text", False),
        ('{"x":null,"y":[1,2]}', False),
        (TOOL_RESULT_UNENCODABLE, True),
        ("null", False),
    ]


async def test_thinking_and_usage_are_gathered_across_turns() -> None:
    provider = ScriptedProvider(
        [
            {
                "content": "",
                "thinking": "first",
                "tools": [call("c", "echo")],
                "usage": {"prompt": 10, "completion": 2, "total": 12},
            },
            {
                "content": "ok",
                "thinking": "second",
                "usage": {"prompt": 20, "completion": 3, "total": 23},
            },
        ]
    )
    result = await create_agent(provider, tools=calculator()).generate(think=True)
    assert result == AgentResult(
        "ok", False, "first\n\nsecond", {"prompt": 30, "completion": 5, "total": 35}
    )
    assert [c["think"] for c in provider.calls] == [True, True]
    assert all("thinking" not in m for m in provider.calls[1]["messages"])


@pytest.mark.parametrize(
    ("turn", "message"),
    [
        (42, "expected a mapping"),
        ({"content": 5}, "content is not a string"),
        ({"content": "", "thinking": 1}, "thinking is not a string"),
        ({"content": "", "tools": "add"}, "tools is not a list"),
        ({"content": "", "tools": [{"name": "add", "arguments": {}}]}, "non-empty string id"),
        (
            {"content": "", "tools": [{"id": "c", "name": "add", "arguments": [1]}]},
            "not a JSON object",
        ),
        ({"content": "", "usage": {"prompt": True, "completion": 1, "total": 1}}, "usage"),
    ],
)
async def test_a_malformed_provider_result_is_a_result_error(turn: Any, message: str) -> None:
    agent = create_agent(ScriptedProvider([turn]), tools=calculator())
    with pytest.raises(AgentError, match=message) as error:
        await agent.generate()
    assert error.value.code == "RESULT"
    assert agent.status == "error"


async def test_ten_megabytes_of_content_pass_through_whole() -> None:
    big = "z" * (10 * 1024 * 1024)
    result = await create_agent(ScriptedProvider([big], stream=True, chunk=1 << 20)).generate()
    assert result.content == big


def test_options_are_checked() -> None:
    provider = ScriptedProvider()
    with pytest.raises(ValueError, match="limit"):
        create_agent(provider, limit=-1)
    with pytest.raises(ValueError, match="limit"):
        create_agent(provider, limit=True)
    with pytest.raises(ValueError, match="timeout"):
        create_agent(provider, timeout=0)
    with pytest.raises(TypeError, match="generate"):
        create_agent(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="signal"):
        create_agent(provider, signal="no")  # type: ignore[arg-type]
    agent = create_agent(provider, id="a1")
    with pytest.raises(TypeError, match="either a context"):
        create_agent(provider, context=agent.context, system="x")
    assert repr(agent) == "Agent(id='a1', status='idle')"


async def test_a_provider_that_ignores_its_signal_is_cut_off_after_the_grace() -> None:
    async def stubborn(messages: Any, tools: Any, signal: Any) -> str:
        await anyio.sleep_forever()
        return "never"

    agent = create_agent(ScriptedProvider([stubborn]), timeout=50)
    with anyio.fail_after(30):
        result = await agent.generate()
    assert result == AgentResult("", partial=True)
    assert agent.status == "done"
