"""`create_agent_function`: a live agent as a workflow step, its immutable metadata, the lineage
checks made before the agent does anything, native cancellation, the result projection, and
errors that keep their identity."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from orkestrel.abort import AbortController
from orkestrel.agent import (
    Agent,
    AgentError,
    AgentInterface,
    AgentResult,
    ProviderError,
    ScriptedProvider,
)
from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import (
    MAX_WORKFLOW_CHAIN,
    WORKFLOW_TOOL_NAME,
    AgentFunction,
    ToolboxError,
    create_agent_function,
    create_tool_function,
    create_workflow_functions,
    is_agent_function,
    tag_agent,
    tag_workflow,
)
from orkestrel.workflow import create_memory_workflow_store, create_workflow_runner
from support.agents import (
    SpyRunner,
    call_workflow,
    controller,
    provider_of,
    root,
    scripted_agent,
    tool_answers,
)

pytestmark = pytest.mark.anyio


def chain(workflows: int) -> tuple[str, ...]:
    """A lineage of `workflows` workflow tags (`w0` ...), agent tags between them, ending with a
    workflow tag: a depth of `workflows - 1`."""
    tags: list[str] = []
    for index in range(workflows):
        if index:
            tags.append(tag_agent(f"a{index}"))
        tags.append(tag_workflow(f"w{index}"))
    return tuple(tags)


class Returning:
    """A live agent's look-alike whose run settles to whatever it is given."""

    def __init__(self, result: Any) -> None:
        self.inner = Agent(ScriptedProvider())
        self.result = result
        self.id, self.status, self.context = "odd", "idle", self.inner.context

    async def generate(self, *, signal: Any = None, think: Any = None) -> Any:
        return self.result

    def abort(self, reason: object = None) -> None:
        return None


async def test_an_agent_as_a_workflow_step_answers_its_projected_result() -> None:
    reviewer = scripted_agent("reviewer", "Looks good.")
    runner = create_workflow_runner()
    functions = create_workflow_functions(runner, agents={"review": reviewer})
    review = functions["review"]
    assert is_agent_function(review)
    assert (review.category, review.lineage) == ("agent", ())
    result = await runner.execute(root("review", id="ship"), functions=functions)
    assert result.status == "completed"
    assert result.results[0].result == {
        "success": True,
        "value": {"content": "Looks good.", "partial": False},
    }
    bound = reviewer.context.tools.tool(WORKFLOW_TOOL_NAME)
    assert bound is not None
    with pytest.raises(ToolboxError) as caught:
        await bound.execute({})
    assert caught.value.code == "DEPTH"
    assert str(caught.value) == "workflow 'ship' is already an ancestor (cycle)"
    assert caught.value.context == {
        "workflow": "ship",
        "lineage": [tag_workflow("ship"), tag_agent("reviewer")],
    }


async def test_the_full_result_is_projected_through_agent_result_to_json() -> None:
    usage = {"prompt": 3, "completion": 2, "total": 5}
    agent = scripted_agent("a", {"content": "Done.", "thinking": "hm", "usage": usage})
    answer = await create_agent_function(agent)(controller("w", AbortController().signal))
    assert answer == {"content": "Done.", "thinking": "hm", "usage": usage, "partial": False}


def test_the_metadata_is_immutable_and_the_guard_is_exact() -> None:
    lineage = [tag_workflow("w0")]
    function = create_agent_function(scripted_agent("a"), lineage=lineage)
    lineage.append(tag_agent("x"))
    assert function.lineage == (tag_workflow("w0"),)
    assert isinstance(function.lineage, tuple)
    for name in ("lineage", "category", "_lineage", "extra"):
        with pytest.raises(AttributeError):
            setattr(function, name, ())
    with pytest.raises(AttributeError):
        del function._lineage
    assert is_agent_function(function)
    assert repr(function) == "AgentFunction(agent='a', lineage=('workflow:w0',))"

    class Spoof:
        category = "agent"
        lineage = ()

        async def __call__(self, controller: Any) -> Any:
            return None

    class Sub(AgentFunction):  # type: ignore[misc]
        __slots__ = ()

    tampered = create_agent_function(scripted_agent("b"))
    object.__setattr__(tampered, "_lineage", ("agent:x",))
    for value in (
        lambda: "opaque",
        Spoof(),
        Sub(scripted_agent("c")),
        tampered,
        None,
        AgentFunction,
        "agent",
    ):
        assert is_agent_function(value) is False, value


@pytest.mark.parametrize(
    ("agent", "options", "message"),
    [
        (
            object(),
            {},
            "agent function needs a live agent with an id, a status, a context and generate",
        ),
        (
            Agent(ScriptedProvider(), id=""),
            {},
            "agent function needs an agent whose id is a non-empty string",
        ),
        (
            None,
            {"lineage": ["agent:a"]},
            "workflow lineage must alternate unique workflow and agent tags",
        ),
        (
            None,
            {"lineage": "workflow:w"},
            "workflow lineage must alternate unique workflow and agent tags",
        ),
        (
            None,
            {"lineage": [tag_workflow("w"), tag_agent("a")]},
            "agent function lineage must end with a workflow tag",
        ),
        (None, {"runner": object()}, "agent function runner must have an execute method"),
        (None, {"functions": [print]}, "workflow functions must be a mapping of name to value"),
        (None, {"agents": {1: object()}}, "workflow agents names must be non-empty strings"),
    ],
)
def test_malformed_construction_is_tool(agent: Any, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_agent_function(agent if agent is not None else scripted_agent("a"), **options)
    assert (caught.value.code, str(caught.value)) == ("TOOL", message)


def test_a_direct_adapter_with_a_runner_but_no_tool_factory_is_tool() -> None:
    with pytest.raises(ToolboxError) as caught:
        AgentFunction(scripted_agent("a"), runner=create_workflow_runner())
    assert (caught.value.code, str(caught.value)) == (
        "TOOL",
        "agent function with a runner needs the workflow tool factory as tool",
    )


async def test_an_already_aborted_signal_starts_no_provider_call() -> None:
    agent = scripted_agent("a", "never")
    aborted = AbortController()
    aborted.abort("stop")
    answer = await create_agent_function(agent, runner=create_workflow_runner())(
        controller("w", aborted.signal)
    )
    assert answer == {"content": "", "partial": True}
    assert provider_of(agent).calls == []
    assert provider_of(agent).remaining == 1


async def test_a_cancelled_run_settles_as_a_partial_result() -> None:
    streamed = anyio.Event()

    async def slow(messages: Any, tools: Any, signal: Any) -> AsyncIterator[str]:
        async def parts() -> AsyncIterator[str]:
            yield "Half an "
            yield "answer"
            streamed.set()
            await anyio.sleep_forever()

        return parts()

    agent = Agent(ScriptedProvider([slow], stream=True), id="a")
    run = AbortController()
    answers: list[Any] = []

    async def step() -> None:
        answers.append(await create_agent_function(agent)(controller("w", run.signal)))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(step)
            await streamed.wait()
            run.abort("enough")
    assert answers == [{"content": "Half an answer", "partial": True}]
    assert agent.status == "done"


@pytest.mark.parametrize(
    "result",
    [
        None,
        "text",
        {"content": 5, "partial": False},
        {"content": "x"},
        {"content": "x", "partial": "no"},
        {
            "content": "x",
            "partial": False,
            "usage": {"prompt": math.nan, "completion": 1, "total": 1},
        },
        AgentResult(content=None, partial=False),  # type: ignore[arg-type]
    ],
)
async def test_a_malformed_result_is_tool(result: Any) -> None:
    agent: AgentInterface = Returning(result)  # type: ignore[assignment]
    with pytest.raises(ToolboxError) as caught:
        await create_agent_function(agent)(controller("w", AbortController().signal))
    assert caught.value.code == "TOOL"
    assert str(caught.value) == "agent 'odd' returned a non-JSON result"
    assert caught.value.context == {"agent": "odd"}


async def test_genuine_provider_errors_keep_their_identity() -> None:
    error = ProviderError("SERVER", "provider returned 503: overloaded")
    agent = scripted_agent("a", error)
    function = create_agent_function(agent)
    with pytest.raises(ProviderError) as caught:
        await function(controller("w", AbortController().signal))
    assert caught.value is error
    assert agent.status == "error"

    class Boom(Exception):
        pass

    boom = Boom("the model backend is on fire")
    failing = scripted_agent("b", boom)
    runner = SpyRunner()
    result = await runner.execute(
        root("review"), functions=create_workflow_functions(runner, agents={"review": failing})
    )
    assert runner.raised == [boom]
    assert result.results[0].status == "failed"
    assert result.results[0].result == {
        "success": False,
        "error": {"origin": "handler", "message": "the model backend is on fire"},
    }


async def test_without_a_runner_a_concurrent_run_is_the_agent_s_own_error() -> None:
    gate = anyio.Event()

    async def waits(messages: Any, tools: Any, signal: Any) -> str:
        await gate.wait()
        return "first"

    agent = scripted_agent("a", waits)
    function = create_agent_function(agent)
    first: list[Any] = []

    async def run_first() -> None:
        first.append(await function(controller("w", AbortController().signal)))

    async with anyio.create_task_group() as group:
        group.start_soon(run_first)
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(AgentError) as caught:
            await function(controller("w", AbortController().signal))
        assert caught.value.code == "CONCURRENCY"
        gate.set()
    assert first == [{"content": "first", "partial": False}]
    assert WORKFLOW_TOOL_NAME not in [tool.name for tool in agent.context.tools.tools()]


async def test_a_workflow_that_does_not_match_the_lineage_is_refused_before_the_agent() -> None:
    agent = scripted_agent("a", "never")
    function = create_agent_function(agent, runner=create_workflow_runner(), lineage=chain(2))
    with pytest.raises(ToolboxError) as caught:
        await function(controller("elsewhere", AbortController().signal))
    assert caught.value.code == "DEPTH"
    assert str(caught.value) == "agent function workflow does not match its lineage"
    assert caught.value.context == {"workflow": "elsewhere", "lineage": list(chain(2))}
    assert provider_of(agent).calls == []
    assert agent.context.tools.tools() == []


async def test_depth_8_runs_and_depth_9_is_refused_before_the_agent() -> None:
    deep = scripted_agent("deep", "at depth 8")
    at_eight = create_agent_function(deep, runner=create_workflow_runner(), lineage=chain(9))
    answer = await at_eight(controller("w8", AbortController().signal))
    assert answer == {"content": "at depth 8", "partial": False}
    bound = deep.context.tools.tool(WORKFLOW_TOOL_NAME)
    assert bound is not None
    with pytest.raises(ToolboxError) as nested:
        await bound.execute({"name": "w9", "steps": []})
    assert nested.value.code == "DEPTH"
    assert nested.value.context == {"workflow": "w9", "depth": 9, "max": MAX_WORKFLOW_CHAIN}

    deeper = scripted_agent("deeper", "never")
    at_nine = create_agent_function(deeper, runner=create_workflow_runner(), lineage=chain(10))
    with pytest.raises(ToolboxError) as caught:
        await at_nine(controller("w9", AbortController().signal))
    assert caught.value.code == "DEPTH"
    assert str(caught.value) == "agent 'deeper' exceeds max workflow depth 8"
    assert caught.value.context == {"agent": "deeper", "depth": 9, "max": 8}
    assert provider_of(deeper).calls == []
    assert deeper.context.tools.tools() == []


async def test_an_agent_already_in_the_lineage_is_a_cycle_refused_before_the_agent() -> None:
    agent = scripted_agent("a1", "never")
    function = create_agent_function(agent, runner=create_workflow_runner(), lineage=chain(3))
    with pytest.raises(ToolboxError) as caught:
        await function(controller("w2", AbortController().signal))
    assert caught.value.code == "DEPTH"
    assert str(caught.value) == "agent 'a1' is already an ancestor (cycle)"
    assert caught.value.context == {"agent": "a1", "lineage": list(chain(3))}
    assert provider_of(agent).calls == []


async def test_the_bound_workflow_tool_runs_the_propagated_functions_and_store() -> None:
    published: list[Any] = []
    manager = ToolManager()
    manager.add(Tool(name="publish", execute=lambda args: published.append(args) or "ok"))
    store = create_memory_workflow_store()
    steps = {"name": "release", "steps": [{"name": "publish", "input": {"to": "pypi"}}]}
    agent = scripted_agent("planner", call_workflow(steps), "Released.")
    runner = SpyRunner()
    function = create_agent_function(
        agent,
        runner=runner,
        functions={"publish": create_tool_function(manager, "publish")},
        store=store,
    )
    answer = await function(controller("ship", AbortController().signal))
    assert answer == {"content": "Released.", "partial": False}
    assert published == [{"to": "pypi"}]
    assert runner.ran == ["release"]
    assert tool_answers(agent) == ['{"status":"completed","count":1,"durable":true}']
    snapshot = await store.get("release")
    assert snapshot is not None
    assert snapshot["status"] == "completed"
    bound = agent.context.tools.tool(WORKFLOW_TOOL_NAME)
    assert bound is not None
    assert "Registered behaviors: publish." in bound.description


async def test_each_run_replaces_the_bound_workflow_tool() -> None:
    agent = scripted_agent("a", "one", "two")
    agent.context.tools.add(Tool(name=WORKFLOW_TOOL_NAME, execute=lambda a: "stale"))
    function = create_agent_function(agent, runner=create_workflow_runner())
    await function(controller("w", AbortController().signal))
    first = agent.context.tools.tool(WORKFLOW_TOOL_NAME)
    await function(controller("w", AbortController().signal))
    second = agent.context.tools.tool(WORKFLOW_TOOL_NAME)
    assert first is not None
    assert second is not None
    assert first is not second
    assert [tool.name for tool in agent.context.tools.tools()] == [WORKFLOW_TOOL_NAME]
    assert first.summary == second.summary != "stale"
