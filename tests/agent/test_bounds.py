"""The bounds a hostile model backend meets, over the loopback OpenAI-compatible and Anthropic
servers: a total deadline per provider request, the tool calls one turn may run, the size of
the conversation, and the agents and model requests a delegation tree may spend."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from agent.helpers import consume, live, user
from agent.servers import (
    Backend,
    Reply,
    anthropic_stream,
    json_reply,
    openai_call,
    openai_completion,
    openai_stream,
    rechunk,
    stream_reply,
)
from orkestrel.agent import (
    AgentBudget,
    AgentError,
    ProviderError,
    create_agent,
    create_agent_registry,
    create_anthropic_provider,
    create_openai_provider,
)
from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import create_agent_tool

pytestmark = pytest.mark.anyio

DEADLINE = 0.5
"""The total deadline the tests give a request: far under the read timeout they also give."""


def openai(backend: Backend, **options: Any) -> Any:
    return create_openai_provider(model="gpt-test", base_url=f"{backend.url}/v1", **options)


def overdue(error: ProviderError) -> None:
    assert error.code == "DEADLINE"
    assert error.message == "provider request exceeded its total deadline of 0.5 s (deadline)"


async def test_a_stream_that_stalls_after_its_headers_fails_at_the_deadline(
    backend: Backend,
) -> None:
    backend.push(stream_reply(openai_stream(["Hel"], done=False)[:2], stall=True))
    async with openai(backend, timeout=30, deadline=DEADLINE) as model:
        with anyio.fail_after(5), pytest.raises(ProviderError) as error:
            await consume(model.stream([user("?")], live()))
    overdue(error.value)


async def test_a_stream_that_drips_a_byte_at_a_time_fails_at_the_deadline(
    backend: Backend,
) -> None:
    backend.push(stream_reply(rechunk(openai_stream(["drip"] * 50), 1), delay=0.05))
    async with openai(backend, timeout=30, deadline=DEADLINE) as model:
        with anyio.fail_after(5), pytest.raises(ProviderError) as error:
            await consume(model.stream([user("?")], live()))
    overdue(error.value)


async def test_a_whole_answer_that_stalls_fails_at_the_deadline(backend: Backend) -> None:
    backend.push(stream_reply([b'{"id": '], stall=True))
    async with openai(backend, timeout=30, deadline=DEADLINE, streaming=False) as model:
        with anyio.fail_after(5), pytest.raises(ProviderError) as error:
            await model.generate([user("?")], live())
    overdue(error.value)


async def test_an_anthropic_stream_that_stalls_fails_at_the_deadline(backend: Backend) -> None:
    chunks = anthropic_stream([{"type": "text", "text": "Hel"}], stop=False)
    backend.push(stream_reply(chunks[:2], stall=True))
    async with create_anthropic_provider(
        model="claude-test", base_url=backend.url, timeout=30, deadline=DEADLINE
    ) as model:
        with anyio.fail_after(5), pytest.raises(ProviderError) as error:
            await consume(model.stream([user("?")], live()))
    overdue(error.value)


def counting(ran: list[Any], answer: str = "ok") -> Tool:
    async def execute(args: Any) -> str:
        ran.append(args)
        return answer

    return Tool(name="note", description="Notes a thing.", execute=execute)


def tools_of(*tools: Tool) -> ToolManager:
    manager = ToolManager()
    manager.add(list(tools))
    return manager


async def test_a_turn_of_two_thousand_tool_calls_runs_max_calls_and_says_so(
    backend: Backend,
) -> None:
    calls = [openai_call(f"call_{n}", "note", {"n": n}) for n in range(2000)]
    backend.push(json_reply(openai_completion(None, calls)), json_reply(openai_completion("ok")))
    ran: list[Any] = []
    async with openai(backend, streaming=False) as model:
        agent = create_agent(model, tools=tools_of(counting(ran)))
        agent.context.messages.add({"role": "user", "content": "note everything"})
        result = await agent.generate()
    assert (result.content, len(ran)) == ("ok", 32)
    sent = backend.requests[1].body["messages"]
    assert len(sent[1]["tool_calls"]) == 33
    answers = [message for message in sent if message["role"] == "tool"]
    assert len(answers) == 33
    assert answers[-1] == {
        "role": "tool",
        "tool_call_id": "call_32",
        "content": "not run: this turn made 2000 tool calls, over the agent's max_calls limit "
        "of 32 per turn; the first 32 ran and the other 1968 were dropped",
    }


async def test_tool_answers_past_max_context_are_replaced_by_a_notice(backend: Backend) -> None:
    calls = [openai_call(f"call_{n}", "note", {"n": n}) for n in range(10)]
    backend.push(json_reply(openai_completion(None, calls)), json_reply(openai_completion("ok")))
    async with openai(backend, streaming=False) as model:
        tools = tools_of(counting([], "x" * 1000))
        agent = create_agent(model, tools=tools, max_context=6000)
        agent.context.messages.add({"role": "user", "content": "read"})
        await agent.generate()
    answers = [m["content"] for m in backend.requests[1].body["messages"] if m["role"] == "tool"]
    notice = (
        "not kept: this answer of 1000 characters would take the conversation over the "
        "agent's max_context limit of 6000; ask for less"
    )
    assert answers == ["x" * 1000] * 4 + [notice] * 6
    assert len(json.dumps(backend.requests[1].body["messages"])) < 8000


async def test_a_conversation_past_max_context_is_not_sent(backend: Backend) -> None:
    async with openai(backend) as model:
        agent = create_agent(model, max_context=100)
        agent.context.messages.add({"role": "user", "content": "y" * 101})
        with pytest.raises(AgentError) as error:
            await agent.generate()
    assert (error.value.code, error.value.message) == (
        "LIMIT",
        "conversation not sent: it holds 101 characters, over the agent's max_context limit of 100",
    )
    assert backend.requests == []


def always(reply: Any) -> Any:
    def respond(body: Any) -> Reply:
        return json_reply(reply(body))

    return respond


async def test_a_budget_stops_a_model_that_never_stops_calling_tools(backend: Backend) -> None:
    backend.respond = always(
        lambda body: openai_completion(None, [openai_call("call_1", "note", {})])
    )
    budget = AgentBudget(max_requests=3)
    async with openai(backend, streaming=False) as model:
        agent = create_agent(model, tools=tools_of(counting([])), budget=budget)
        agent.context.messages.add({"role": "user", "content": "loop"})
        with pytest.raises(AgentError) as error:
            await agent.generate()
    assert (error.value.code, error.value.message) == (
        "LIMIT",
        "model request refused: this call already made 3 model requests, its max_requests "
        "limit (orkestrel serve --agent-max-requests)",
    )
    assert len(backend.requests) == 3


async def test_delegations_past_max_agents_are_refused_and_the_model_is_told(
    backend: Backend,
) -> None:
    def reply(body: Any) -> Any:
        messages = body["messages"]
        if messages[0]["content"] == "sub task":
            return openai_completion("sub done")
        if messages[-1]["role"] == "tool":
            return openai_completion("all done")
        calls = [openai_call(f"call_{n}", "agent", {"task": "sub task"}) for n in range(3)]
        return openai_completion(None, calls)

    backend.respond = always(reply)
    budget = AgentBudget(max_agents=2)
    async with openai(backend, streaming=False) as model:
        registry = create_agent_registry(providers={"openai": model})
        tool = create_agent_tool(registry, provider="openai", budget=budget)
        agent = create_agent(model, tools=tools_of(tool), budget=budget)
        agent.context.messages.add({"role": "user", "content": "fan out"})
        result = await agent.generate()
    assert result.content == "all done"
    answers = [m["content"] for m in backend.requests[-1].body["messages"] if m["role"] == "tool"]
    assert sorted(answers) == [
        "delegation refused: this call already started 2 agents, its max_agents limit "
        "(orkestrel serve --agent-max-agents)",
        "sub done",
        "sub done",
    ]
    assert (budget.agents, budget.requests, len(backend.requests)) == (2, 4, 4)
