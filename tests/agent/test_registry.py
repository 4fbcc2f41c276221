"""`AgentRegistry`: named providers and tools, and a fresh agent per job."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.abort import AbortController
from orkestrel.agent import (
    AgentError,
    AgentResult,
    ScriptedProvider,
    create_agent_registry,
    create_memory_conversation_store,
)
from orkestrel.tool import create_tool

pytestmark = pytest.mark.anyio


def registry(**options: Any) -> Any:
    tools = {
        "upper": create_tool(name="upper", execute=lambda args: str(args.get("text", "")).upper()),
        "lower": create_tool(name="lower", execute=lambda args: str(args.get("text", "")).lower()),
    }
    return create_agent_registry(
        providers={"fast": ScriptedProvider(["one", "two", "three"])}, tools=tools, **options
    )


async def test_each_build_is_fresh_and_seeded() -> None:
    agents = registry()
    job: Any = {
        "provider": "fast",
        "messages": [{"role": "user", "content": "hi"}],
        "system": "Short.",
        "tools": ["upper"],
        "limit": 2,
        "timeout": 5000,
    }
    first = agents.build(job)
    second = agents.build(job)
    assert first.id != second.id
    assert first.context.messages.id != second.context.messages.id
    assert [tool.name for tool in first.context.tools.tools()] == ["upper"]
    assert first.context.system == "Short."
    assert first.limit == 2
    assert [m["content"] for m in first.context.build()] == ["Short.", "hi"]
    assert await first.generate() == AgentResult("one")
    assert agents.providers() == ["fast"]
    assert agents.tools() == ["upper", "lower"]


def test_unknown_names_raise_plain_lookup_errors() -> None:
    agents = registry()
    with pytest.raises(LookupError) as provider:
        agents.build({"provider": "ghost", "messages": []})
    assert str(provider.value) == "unknown provider: ghost"
    assert type(provider.value) is LookupError
    with pytest.raises(LookupError) as tool:
        agents.build({"provider": "fast", "messages": [], "tools": ["upper", "nope"]})
    assert str(tool.value) == "unknown tool: nope"
    with pytest.raises(LookupError, match="unknown tool: 3"):
        agents.tool(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ("job", "must be a mapping"),
        ({"provider": "fast", "messages": [], "colour": "red"}, "no field"),
        ({"provider": "fast", "messages": "hi"}, "'messages' must be a list"),
        ({"provider": "fast", "messages": [], "tools": "upper"}, "'tools' must be a list"),
        ({"provider": "fast", "messages": [], "system": 3}, "'system' must be a string"),
        ({"provider": "fast", "messages": [], "limit": -1}, "limit"),
        ({"provider": "fast", "messages": [], "timeout": 0.5}, "timeout"),
    ],
)
def test_malformed_jobs_are_job_errors(job: Any, message: str) -> None:
    with pytest.raises(AgentError, match=message) as error:
        registry().build(job)
    assert error.value.code == "JOB"


def test_malformed_seed_messages_are_message_errors() -> None:
    with pytest.raises(AgentError) as error:
        registry().build({"provider": "fast", "messages": [{"role": "robot", "content": "x"}]})
    assert error.value.code == "MESSAGE"


async def test_a_registry_store_backs_every_built_agent() -> None:
    store = create_memory_conversation_store()
    agents = registry(store=store)
    agent = agents.build({"provider": "fast", "messages": [{"role": "user", "content": "hi"}]})
    await agent.generate()
    conversation = agent.context.conversations.active
    assert conversation is not None
    assert await agent.context.conversations.save(conversation.id) is True
    saved = await store.get(conversation.id)
    assert saved is not None
    assert [m["content"] for m in saved["messages"]] == ["hi", "one"]
    assert agents.store is store


async def test_the_build_signal_stops_every_run() -> None:
    controller = AbortController()
    controller.abort()
    agent = registry().build({"provider": "fast", "messages": []}, signal=controller.signal)
    assert await agent.generate() == AgentResult("", partial=True)


def test_the_mappings_are_copied_and_checked() -> None:
    providers = {"fast": ScriptedProvider()}
    agents = create_agent_registry(providers=providers)
    providers.clear()
    assert agents.provider("fast") is not None
    with pytest.raises(TypeError, match="mapping"):
        create_agent_registry(providers=["fast"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="non-empty strings"):
        create_agent_registry(providers={"": ScriptedProvider()})
