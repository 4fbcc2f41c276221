"""The agent tool: the seed's delegation patterns with their exact values, the store slot, the
depth and cycle guards, per-call overrides, and the advertised shape and texts."""

from __future__ import annotations

import re
from typing import Any, get_type_hints

import anyio
import pytest

from orkestrel.abort import AbortController
from orkestrel.agent import (
    AgentJobInput,
    ConversationSnapshot,
    ScriptedProvider,
    create_agent_registry,
    create_memory_conversation_store,
)
from orkestrel.contract import create_contract
from orkestrel.tool import ToolManager, create_tool
from orkestrel.toolbox import (
    AGENT_TOOL_DEPTH,
    AGENT_TOOL_DESCRIPTION,
    AGENT_TOOL_NAME,
    AGENT_TOOL_SUMMARY,
    AgentToolArguments,
    ToolboxError,
    agent_tool_shape,
    create_agent_tool,
    create_describe_tool,
)

pytestmark = pytest.mark.anyio

TASK = "Summarize the attached notes in three bullet points."
ANSWER = "- one\n- two\n- three"
HEX = re.compile(r"^[0-9a-f]{32}$")


def delegate(task: str = TASK, **extra: Any) -> Any:
    return {"id": "delegate-1", "name": "agent", "arguments": {"task": task, **extra}}


class Spy:
    """A registry that records its builds and delegates to a real one."""

    def __init__(self, inner: Any, signal: Any = None) -> None:
        self.inner, self.signal, self.jobs = inner, signal, []

    def build(self, job: AgentJobInput, *, signal: Any = None, budget: Any = None) -> Any:
        self.jobs.append(job)
        return self.inner.build(job, signal=self.signal, budget=budget)


async def test_a_delegation_through_a_tool_manager_returns_the_settled_content() -> None:
    provider = ScriptedProvider([ANSWER])
    registry = create_agent_registry(providers={"openai": provider})
    tools = ToolManager()
    tools.add(create_agent_tool(registry, provider="openai"))
    result = await tools.execute(delegate())
    assert result == {"id": "delegate-1", "name": "agent", "success": True, "value": ANSWER}
    assert provider.calls[0]["messages"][-1]["content"] == TASK
    assert provider.calls[0]["tools"] is None


async def test_the_store_slot_persists_exactly_one_snapshot_per_delegation() -> None:
    provider = ScriptedProvider([ANSWER, ANSWER])
    registry = create_agent_registry(providers={"openai": provider})
    store = create_memory_conversation_store()
    tools = ToolManager()
    tools.add(create_agent_tool(registry, provider="openai", store=store))
    await tools.execute(delegate())
    [first_id] = store.ids()  # type: ignore[attr-defined]
    snapshot = await store.get(first_id)
    assert snapshot is not None
    assert HEX.match(first_id)
    user, assistant = snapshot["messages"]
    expected: ConversationSnapshot = {
        "id": first_id,
        "sections": [],
        "messages": [
            {"id": user["id"], "role": "user", "content": TASK},
            {"id": assistant["id"], "role": "assistant", "content": ANSWER},
        ],
    }
    assert snapshot == expected
    await tools.execute(delegate())
    ids = store.ids()  # type: ignore[attr-defined]
    assert len(ids) == 2
    assert ids[0] == first_id
    assert ids[1] != first_id


async def test_concurrent_delegations_never_collide_in_a_shared_store() -> None:
    provider = ScriptedProvider([f"answer {n}" for n in range(5)])
    store = create_memory_conversation_store()
    tools = ToolManager()
    tools.add(
        create_agent_tool(
            create_agent_registry(providers={"openai": provider}), provider="openai", store=store
        )
    )
    calls = [{**delegate(f"task {n}"), "id": f"d{n}"} for n in range(5)]
    results = await tools.execute(calls)
    assert all(result["success"] for result in results)
    assert len(store.ids()) == 5  # type: ignore[attr-defined]


async def test_a_failing_store_fails_the_call() -> None:
    class Broken:
        def __init__(self) -> None:
            self.sets = 0

        async def get(self, id: str) -> None:
            return None

        async def set(self, snapshot: Any) -> None:
            self.sets += 1
            raise OSError("disk full")

        async def delete(self, id: str) -> None:
            return None

    broken = Broken()
    registry = create_agent_registry(providers={"openai": ScriptedProvider([ANSWER])})
    tools = ToolManager()
    tools.add(create_agent_tool(registry, provider="openai", store=broken))
    result = await tools.execute(delegate())
    assert result == {"id": "delegate-1", "name": "agent", "success": False, "error": "disk full"}
    assert broken.sets == 1


async def test_without_a_store_nothing_is_persisted_and_stores_compose() -> None:
    own = create_memory_conversation_store()
    registry = create_agent_registry(
        providers={"openai": ScriptedProvider([ANSWER, ANSWER])}, store=own
    )
    plain = create_agent_tool(registry, provider="openai")
    assert await plain.execute({"task": TASK}) == ANSWER
    assert own.ids() == []  # type: ignore[attr-defined]
    slot = create_memory_conversation_store()
    assert await create_agent_tool(registry, provider="openai", store=slot).execute({"task": TASK})
    assert len(slot.ids()) == 1
    assert own.ids() == []


async def test_a_missing_provider_is_tool_before_any_agent_is_built() -> None:
    spy = Spy(create_agent_registry(providers={"openai": ScriptedProvider([ANSWER])}))
    tool = create_agent_tool(spy)
    with pytest.raises(ToolboxError) as error:
        await tool.execute({"task": TASK})
    assert error.value.code == "TOOL"
    assert str(error.value) == "no provider resolved for the delegated agent"
    assert error.value.context == {"task": TASK}
    assert spy.jobs == []


@pytest.mark.parametrize(
    "args",
    [
        {"task": ""},
        {},
        {"task": 3.5j},
        {"task": "x", "tools": "all"},
        {"task": "x", "tools": [""]},
        {"task": "x", "provider": ""},
        "task",
        None,
        {"task": [[[[]]]]},
    ],
)
async def test_malformed_calls_are_tool_before_any_agent_is_built(args: Any) -> None:
    spy = Spy(create_agent_registry(providers={"openai": ScriptedProvider([ANSWER])}))
    with pytest.raises(ToolboxError, match=r"^malformed agent-delegation call") as error:
        await create_agent_tool(spy, provider="openai").execute(args)
    assert error.value.code == "TOOL"
    assert spy.jobs == []


async def test_the_depth_and_cycle_guards() -> None:
    provider = ScriptedProvider([ANSWER, "other"])
    spy = Spy(create_agent_registry(providers={"openai": provider, "other": provider}))
    deepest = create_agent_tool(spy, provider="openai", depth=AGENT_TOOL_DEPTH - 1)
    assert await deepest.execute({"task": TASK}) == ANSWER
    with pytest.raises(ToolboxError) as depth:
        await create_agent_tool(spy, provider="openai", depth=8).execute({"task": TASK})
    assert depth.value.code == "DEPTH"
    assert str(depth.value) == "delegation exceeds max agent depth 8"
    assert depth.value.context == {"provider": "openai", "depth": 8, "max": 8}
    cyclic = create_agent_tool(spy, provider="openai", ancestry=("agent:openai",))
    with pytest.raises(ToolboxError) as cycle:
        await cyclic.execute({"task": TASK})
    assert cycle.value.code == "DEPTH"
    assert str(cycle.value) == "agent 'openai' is already an ancestor (cycle)"
    assert cycle.value.context == {"provider": "openai", "ancestry": ["agent:openai"]}
    assert await cyclic.execute({"task": TASK, "provider": "other"}) == "other"
    assert [job["provider"] for job in spy.jobs] == ["openai", "other"]


async def test_the_registrys_own_errors_pass_through_unwrapped() -> None:
    registry = create_agent_registry(providers={"openai": ScriptedProvider([ANSWER])})
    tool = create_agent_tool(registry, provider="openai")
    with pytest.raises(LookupError) as error:
        await tool.execute({"task": TASK, "provider": "ghost"})
    assert type(error.value) is LookupError
    assert str(error.value) == "unknown provider: ghost"
    tools = ToolManager()
    tools.add(tool)
    result = await tools.execute(delegate(provider="ghost"))
    assert result["success"] is False
    assert result["error"] == "unknown provider: ghost"


async def test_per_call_fields_override_and_replace_the_defaults() -> None:
    fast, strong = ScriptedProvider(["fast"] * 3), ScriptedProvider(["strong"])
    tools = {
        "upper": create_tool(name="upper", execute=lambda args: "U"),
        "lower": create_tool(name="lower", execute=lambda args: "l"),
    }
    spy = Spy(create_agent_registry(providers={"fast": fast, "strong": strong}, tools=tools))
    tool = create_agent_tool(spy, provider="fast", tools=["upper"], system="Default.")
    assert await tool.execute({"task": "a"}) == "fast"
    assert (
        await tool.execute(
            {"task": "b", "provider": "strong", "tools": ["lower"], "system": "Mine."}
        )
        == "strong"
    )
    assert await tool.execute({"task": "c", "tools": [], "system": ""}) == "fast"
    assert spy.jobs == [
        {
            "provider": "fast",
            "messages": [{"role": "user", "content": "a"}],
            "system": "Default.",
            "tools": ["upper"],
        },
        {
            "provider": "strong",
            "messages": [{"role": "user", "content": "b"}],
            "system": "Mine.",
            "tools": ["lower"],
        },
        {
            "provider": "fast",
            "messages": [{"role": "user", "content": "c"}],
            "system": "",
            "tools": [],
        },
    ]
    assert [t["name"] for t in fast.calls[0]["tools"] or []] == ["upper"]
    assert fast.calls[0]["messages"][0] == {
        **fast.calls[0]["messages"][0],
        "role": "system",
        "content": "Default.",
    }
    assert fast.calls[1]["tools"] is None


async def test_the_sub_agent_calls_the_tools_it_was_given() -> None:
    provider = ScriptedProvider(
        [
            {"content": "", "tools": [{"id": "u1", "name": "upper", "arguments": {"text": "hi"}}]},
            "done: HI",
        ]
    )
    upper = create_tool(name="upper", execute=lambda args: args["text"].upper())
    registry = create_agent_registry(providers={"openai": provider}, tools={"upper": upper})
    tool = create_agent_tool(registry, provider="openai", tools=["upper"])
    assert await tool.execute({"task": "shout hi"}) == "done: HI"
    assert provider.calls[1]["messages"][-1]["content"] == "HI"


async def test_an_abort_during_generate_settles_with_the_partial_answer() -> None:
    async def parked(messages: Any, tools: Any, signal: Any) -> Any:
        yield "partial "
        yield "answer"
        await anyio.sleep_forever()
        yield "never"

    controller = AbortController()
    registry = create_agent_registry(providers={"openai": ScriptedProvider([parked], stream=True)})
    store = create_memory_conversation_store()
    tool = create_agent_tool(Spy(registry, controller.signal), provider="openai", store=store)

    async def stop() -> None:
        await anyio.sleep(0.1)
        controller.abort()

    async with anyio.create_task_group() as group:
        group.start_soon(stop)
        answer = await tool.execute({"task": TASK})
    assert answer == "partial answer"
    assert len(store.ids()) == 1  # type: ignore[attr-defined]


async def test_the_summary_is_lean_and_describe_gives_the_full_description() -> None:
    registry = create_agent_registry(providers={"openai": ScriptedProvider()})
    tools = ToolManager()
    tool = create_agent_tool(registry, provider="openai")
    tools.add([tool, create_describe_tool(tools)])
    assert tool.name == AGENT_TOOL_NAME == "agent"
    assert tool.summary == AGENT_TOOL_SUMMARY
    assert "describe('agent')" in AGENT_TOOL_SUMMARY
    assert tools.definitions()[0]["description"] == AGENT_TOOL_SUMMARY
    full = await tools.execute({"id": "d", "name": "describe", "arguments": {"name": "agent"}})
    assert full["value"] == AGENT_TOOL_DESCRIPTION
    renamed = create_agent_tool(registry, name="delegate", description="Custom.")
    assert renamed.name == "delegate"
    assert renamed.description == "Custom."
    assert renamed.summary is not None
    assert "describe('delegate')" in renamed.summary
    assert "describe('agent')" not in renamed.summary
    assert tool.annotations == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
        "title": "Delegate to a sub-agent",
    }


def test_the_shape_agrees_with_the_arguments_type() -> None:
    hints = get_type_hints(AgentToolArguments)
    properties = agent_tool_shape["properties"]
    assert set(properties) == set(hints) == {"task", "provider", "tools", "system"}
    required = {key for key, shape in properties.items() if shape["type"] != "optional"}
    assert required == set(AgentToolArguments.__required_keys__) == {"task"}
    assert set(AgentToolArguments.__optional_keys__) == {"provider", "tools", "system"}
    contract = create_contract(agent_tool_shape)
    sample: AgentToolArguments = {"task": "t", "provider": "p", "tools": ["a"], "system": ""}
    assert contract.parse(sample) == sample
    parameters = create_agent_tool(create_agent_registry(providers={})).parameters
    assert parameters is not None
    assert parameters["type"] == "object"
    assert parameters["required"] == ["task"]
    assert parameters["additionalProperties"] is False
    assert not {"anyOf", "oneOf", "allOf"} & set(parameters)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"depth": -1}, "depth"),
        ({"depth": True}, "depth"),
        ({"ancestry": "agent:openai"}, "ancestry"),
        ({"ancestry": [1]}, "ancestry"),
        ({"tools": "upper"}, "tools"),
        ({"provider": ""}, "provider"),
        ({"system": 3}, "system"),
        ({"name": ""}, "name"),
        ({"store": object()}, "store"),
    ],
)
def test_construction_options_are_checked(options: dict[str, Any], message: str) -> None:
    registry = create_agent_registry(providers={})
    with pytest.raises(ToolboxError, match=message) as error:
        create_agent_tool(registry, **options)
    assert error.value.code == "TOOL"
    with pytest.raises(ToolboxError, match="build"):
        create_agent_tool(object())  # type: ignore[arg-type]


async def test_a_ten_megabyte_task_reaches_the_sub_agent_whole() -> None:
    provider = ScriptedProvider(["read it"])
    tool = create_agent_tool(
        create_agent_registry(providers={"openai": provider}), provider="openai"
    )
    task = "n" * (10 * 1024 * 1024)
    assert await tool.execute({"task": task}) == "read it"
    assert provider.calls[0]["messages"][0]["content"] == task


async def test_provider_errors_pass_through_by_identity() -> None:
    from orkestrel.agent import ProviderError

    failure = ProviderError("RATE_LIMIT", "provider returned 429: slow down", {"status": 429})
    registry = create_agent_registry(providers={"openai": ScriptedProvider([failure, failure])})
    tool = create_agent_tool(registry, provider="openai")
    with pytest.raises(ProviderError) as error:
        await tool.execute({"task": TASK})
    assert error.value is failure
    tools = ToolManager()
    tools.add(tool)
    result = await tools.execute(delegate())
    assert result["error"] == "provider returned 429: slow down"
