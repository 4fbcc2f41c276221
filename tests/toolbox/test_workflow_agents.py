"""Raw agents as workflow steps, through real runners, workflow tools and scripted providers:
the seed's composition pattern with its exact values, and the recursion laws (depth 8 and 9,
self-recursion, A→B→A, one live agent run twice at once, agents on the opaque channel)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from orkestrel.agent import Agent
from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import (
    MAX_WORKFLOW_CHAIN,
    WORKFLOW_TOOL_NAME,
    ToolboxError,
    create_agent_function,
    create_tool_function,
    create_workflow_functions,
    create_workflow_tool,
    is_agent_function,
    tag_agent,
    tag_workflow,
)
from orkestrel.workflow import MemoryWorkflowStore, create_workflow_runner
from support.agents import (
    SHIP,
    SpyRunner,
    call_workflow,
    provider_of,
    root,
    scripted_agent,
    tool_answers,
)

pytestmark = pytest.mark.anyio


async def settled(store: MemoryWorkflowStore, id: str) -> list[tuple[str, Any]]:
    """The status and outcome of every task of a stored run."""
    snapshot = await store.get(id)
    assert snapshot is not None, id
    return [(t["status"], t.get("result")) for p in snapshot["phases"] for t in p["tasks"]]


async def test_composing_opaque_leaves_and_raw_agents_into_a_workflow_registry() -> None:
    published: list[Any] = []
    tools = ToolManager()
    tools.add(Tool(name="publish", execute=lambda args: published.append(args) or "published"))
    review_agent = scripted_agent("reviewer", "Looks good.", "Still good.")
    runner = create_workflow_runner()
    leaves = {"publish": create_tool_function(tools, "publish")}
    agents = {"review": review_agent}
    functions = create_workflow_functions(runner, functions=leaves, agents=agents)
    assert sorted(functions) == ["publish", "review"]
    assert is_agent_function(functions["review"])
    assert functions["review"].lineage == ()
    assert functions["publish"] is leaves["publish"]
    result = await runner.execute(SHIP, functions=functions)
    assert result.status == "completed"
    assert len(result.results) == 2
    assert [item.result["value"] for item in result.results] == [
        {"content": "Looks good.", "partial": False},
        "published",
    ]
    tool = create_workflow_tool(SHIP, runner, functions=leaves, agents=agents)
    assert await tool.execute({}) == {"status": "completed", "count": 2}
    assert [m["content"] for m in review_agent.context.messages.messages()] == [
        "Do your part.",
        "Looks good.",
        "Still good.",
    ]


async def test_a_top_level_tool_runs_a_raw_agent_through_a_tool_manager() -> None:
    agent = scripted_agent("writer", "A haiku.")
    tools = ToolManager()
    tools.add(
        create_workflow_tool(root("write"), create_workflow_runner(), agents={"write": agent})
    )
    result = await tools.execute(
        {
            "id": "c1",
            "name": "workflow",
            "arguments": {"name": "poem", "steps": [{"name": "write"}]},
        }
    )
    assert result["value"] == {"status": "completed", "count": 1}
    bound = agent.context.tools.tool(WORKFLOW_TOOL_NAME)
    assert bound is not None
    with pytest.raises(ToolboxError) as caught:
        await bound.execute({})
    assert caught.value.context == {
        "workflow": "poem",
        "lineage": [tag_workflow("poem"), tag_agent("writer")],
    }


async def test_root_plus_eight_nested_workflows_run_and_a_ninth_is_refused() -> None:
    # Agent a<i> runs in workflow w<i> and authors w<i+1>, whose one step is agent a<i+1>.
    crew: dict[str, Agent] = {}
    for index in range(MAX_WORKFLOW_CHAIN + 2):
        step = {"name": f"w{index + 1}", "steps": [{"name": f"a{index + 1}"}]}
        crew[f"a{index}"] = scripted_agent(f"a{index}", call_workflow(step), f"a{index} done")
    runner = SpyRunner()
    store = MemoryWorkflowStore()
    functions = create_workflow_functions(runner, agents=crew, store=store)
    result = await runner.execute(root("a0"), functions=functions, store=store)
    assert result.results[0].result == {
        "success": True,
        "value": {"content": "a0 done", "partial": False},
    }
    assert runner.ran == [f"w{index}" for index in range(MAX_WORKFLOW_CHAIN + 1)]
    assert runner.raised == []
    for index in range(1, MAX_WORKFLOW_CHAIN + 1):
        outcome = {"success": True, "value": {"content": f"a{index} done", "partial": False}}
        assert await settled(store, f"w{index}") == [("completed", outcome)]
    assert await store.get("w9") is None
    assert provider_of(crew["a9"]).calls == []
    deepest = crew[f"a{MAX_WORKFLOW_CHAIN}"]
    assert tool_answers(deepest) == ["nested workflow exceeds max depth 8"]
    assert tool_answers(crew["a7"]) == ['{"status":"completed","count":1,"durable":true}']
    bound = deepest.context.tools.tool(WORKFLOW_TOOL_NAME)
    assert bound is not None
    with pytest.raises(ToolboxError) as caught:
        await bound.execute({"name": "w9", "steps": [{"name": "a9"}]})
    assert caught.value.code == "DEPTH"
    assert caught.value.context == {"workflow": "w9", "depth": 9, "max": 8}
    assert runner.ran[-1] == "w8"
    assert await store.get("w9") is None


async def test_a_direct_registry_at_depth_9_refuses_its_agent_before_it_runs() -> None:
    tags: list[str] = []
    for index in range(MAX_WORKFLOW_CHAIN + 2):
        tags += [tag_agent(f"x{index}")] if index else []
        tags.append(tag_workflow(f"w{index}"))
    agent = scripted_agent("deep", "never")
    runner = SpyRunner()
    functions = create_workflow_functions(runner, lineage=tags, agents={"deep": agent})
    result = await runner.execute(root("deep", id="w9"), functions=functions)
    (error,) = runner.raised
    assert isinstance(error, ToolboxError)
    assert error.code == "DEPTH"
    assert error.context == {"agent": "deep", "depth": 9, "max": 8}
    assert result.results[0].status == "failed"
    assert provider_of(agent).calls == []
    at_eight = create_workflow_functions(runner, lineage=tags[:-2], agents={"deep": agent})
    done = await runner.execute(root("deep", id="w8"), functions=at_eight)
    assert done.results[0].result["value"] == {"content": "never", "partial": False}


async def test_self_recursion_is_refused_before_a_second_agent_run() -> None:
    loop = scripted_agent("a", call_workflow({"name": "w1", "steps": [{"name": "a"}]}), "done")
    runner = SpyRunner()
    store = MemoryWorkflowStore()
    functions = create_workflow_functions(runner, agents={"a": loop}, store=store)
    result = await runner.execute(root("a"), functions=functions, store=store)
    assert result.results[0].result["value"] == {"content": "done", "partial": False}
    (error,) = runner.raised
    assert isinstance(error, ToolboxError)
    assert error.code == "DEPTH"
    assert str(error) == "agent 'a' is already an ancestor (cycle)"
    assert error.context == {
        "agent": "a",
        "lineage": [tag_workflow("w0"), tag_agent("a"), tag_workflow("w1")],
    }
    failure = {
        "success": False,
        "error": {"origin": "handler", "message": "agent 'a' is already an ancestor (cycle)"},
    }
    assert await settled(store, "w1") == [("failed", failure)]
    assert len(provider_of(loop).calls) == 2
    assert runner.ran == ["w0", "w1"]


async def test_a_b_a_is_refused_before_any_provider_call_of_the_second_a() -> None:
    a = scripted_agent("a", call_workflow({"name": "w1", "steps": [{"name": "b"}]}), "a done")
    b = scripted_agent("b", call_workflow({"name": "w2", "steps": [{"name": "a"}]}), "b done")
    runner = SpyRunner()
    store = MemoryWorkflowStore()
    functions = create_workflow_functions(runner, agents={"a": a, "b": b}, store=store)
    result = await runner.execute(root("a"), functions=functions, store=store)
    assert result.results[0].result["value"] == {"content": "a done", "partial": False}
    assert await settled(store, "w1") == [
        ("completed", {"success": True, "value": {"content": "b done", "partial": False}})
    ]
    (error,) = runner.raised
    assert isinstance(error, ToolboxError)
    assert error.code == "DEPTH"
    assert error.context == {
        "agent": "a",
        "lineage": [
            tag_workflow("w0"),
            tag_agent("a"),
            tag_workflow("w1"),
            tag_agent("b"),
            tag_workflow("w2"),
        ],
    }
    [(status, _)] = await settled(store, "w2")
    assert status == "failed"
    assert (len(provider_of(a).calls), len(provider_of(b).calls)) == (2, 2)
    assert [m["role"] for m in provider_of(a).calls[1]["messages"]] == ["user", "assistant", "tool"]
    assert runner.ran == ["w0", "w1", "w2"]


async def test_a_bound_call_that_authors_nothing_is_a_cycle() -> None:
    agent = scripted_agent("a", call_workflow({}), "gave up")
    runner = SpyRunner()
    functions = create_workflow_functions(runner, agents={"a": agent})
    await runner.execute(root("a"), functions=functions)
    assert tool_answers(agent) == ["workflow 'w0' is already an ancestor (cycle)"]
    assert runner.ran == ["w0"]


async def test_a_second_concurrent_run_on_one_live_agent_is_refused() -> None:
    runner = SpyRunner()
    agent = scripted_agent("shared")
    seen: list[Any] = []

    async def first_turn(messages: Any, tools: Any, signal: Any) -> str:
        seen.append(agent.context.tools.tool(WORKFLOW_TOOL_NAME))
        with anyio.fail_after(10):
            await runner.refused.wait()
        seen.append(agent.context.tools.tool(WORKFLOW_TOOL_NAME))
        return "won"

    provider_of(agent).push(first_turn)
    definition = {
        "id": "w0",
        "name": "w0",
        "phases": [
            {
                "id": "p",
                "name": "P",
                "tasks": [
                    {"id": "one", "name": "One", "behavior": "first"},
                    {"id": "two", "name": "Two", "behavior": "second"},
                ],
            }
        ],
    }
    functions = create_workflow_functions(runner, agents={"first": agent, "second": agent})
    result = await runner.execute(definition, functions=functions)
    outcomes = sorted(item.status for item in result.results)
    assert outcomes == ["completed", "failed"]
    won = next(item for item in result.results if item.status == "completed")
    lost = next(item for item in result.results if item.status == "failed")
    assert won.result["value"] == {"content": "won", "partial": False}
    assert lost.result["error"]["message"] == "agent 'shared' is already running"
    (error,) = runner.raised
    assert isinstance(error, ToolboxError)
    assert (error.code, error.context) == ("TOOL", {"agent": "shared"})
    assert seen[0] is not None
    assert seen[0] is seen[1]
    assert len(provider_of(agent).calls) == 1


async def test_a_raw_agent_on_the_opaque_functions_channel_is_refused() -> None:
    agent = scripted_agent("a", "never")
    runner = SpyRunner()
    with pytest.raises(ToolboxError) as raw:
        create_workflow_functions(runner, functions={"review": agent})  # type: ignore[dict-item]
    assert (raw.value.code, str(raw.value)) == (
        "TOOL",
        "workflow function 'review' is an agent; supply it through agents",
    )
    adapter = create_agent_function(agent)
    with pytest.raises(ToolboxError) as built:
        create_workflow_functions(runner, functions={"review": adapter})
    assert (built.value.code, str(built.value)) == (
        "TOOL",
        "agent function 'review' must be supplied through agents",
    )
    tool = create_workflow_tool(SHIP, runner, functions={"review": agent})  # type: ignore[dict-item]
    with pytest.raises(ToolboxError) as through:
        await tool.execute({})
    assert through.value.context == {"function": "review"}
    assert runner.ran == []
    assert provider_of(agent).calls == []
    assert agent.context.tools.tools() == []


async def test_agents_are_snapshotted_and_rebuilt_for_each_lineage() -> None:
    first = scripted_agent("first", "one")
    crew: dict[str, Any] = {"review": first}
    runner = create_workflow_runner()
    tool = create_workflow_tool(root("review"), runner, agents=crew)
    crew["review"] = scripted_agent("second", "two")
    crew["late"] = scripted_agent("late", "late")
    assert await tool.execute({}) == {"status": "completed", "count": 1}
    assert len(provider_of(first).calls) == 1
    one = create_workflow_functions(runner, agents={"review": first})["review"]
    nested = create_workflow_functions(
        runner, lineage=(tag_workflow("w0"), tag_agent("x"), tag_workflow("w1")), agents=crew
    )["review"]
    assert is_agent_function(one)
    assert is_agent_function(nested)
    assert one.lineage == ()
    assert nested.lineage == ("workflow:w0", "agent:x", "workflow:w1")


def test_the_guide_pins_the_seed_pattern_of_composing_leaves_and_raw_agents() -> None:
    from conftest import ROOT
    from support.fences import pattern, run

    body = pattern(
        ROOT / "docs" / "guides" / "toolbox.md",
        "Composing opaque leaves and raw agents into a workflow registry",
    )
    assert "create_workflow_functions(runner, functions=leaves, agents=agents)" in body
    assert "create_workflow_tool(definition, runner, functions=leaves, agents=agents)" in body
    namespace = run(body, "toolbox.md#agents-pattern")
    assert namespace["values"] == [{"content": "Looks good.", "partial": False}, "published"]
    assert namespace["cycle"] == ("DEPTH", "workflow 'ship' is already an ancestor (cycle)")
