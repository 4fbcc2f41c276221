"""The workflow tool: every authoring path converging on the strict gate, typed refusals before
anything runs, lineage depth and cycles, and the store it forwards."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import anyio
import pytest

from orkestrel.tool import ToolContext, ToolManager
from orkestrel.toolbox import (
    MAX_FAILURE_MESSAGE,
    MAX_WORKFLOW_CHAIN,
    MAX_WORKFLOW_TASKS,
    WORKFLOW_TOOL_DESCRIPTION,
    WORKFLOW_TOOL_NAME,
    WORKFLOW_TOOL_SUMMARY,
    ToolboxError,
    create_describe_tool,
    create_workflow_tool,
    create_workspace_tool,
    tag_agent,
    tag_workflow,
)
from orkestrel.workflow import (
    MemoryWorkflowStore,
    WorkflowError,
    WorkflowResult,
    WorkflowSnapshot,
    create_memory_workflow_store,
    create_restored_workflow,
    create_workflow_contract,
    create_workflow_runner,
)

pytestmark = pytest.mark.anyio

RELEASE = {"id": "release", "name": "Release", "phases": []}
INGEST = {
    "id": "ingest",
    "name": "Ingest",
    "phases": [{"id": "load", "name": "Load", "tasks": [{"id": "read", "name": "Read"}]}],
}


class SpyRunner:
    """A real runner that records what it was asked to run."""

    def __init__(self) -> None:
        self.runner = create_workflow_runner()
        self.calls: list[tuple[Any, Any, Any]] = []

    async def execute(self, definition: Mapping[str, Any], **options: Any) -> WorkflowResult:
        self.calls.append((definition, options.get("functions"), options.get("store")))
        return await self.runner.execute(definition, **options)


class Recording(MemoryWorkflowStore):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[WorkflowSnapshot] = []

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        self.writes.append(snapshot)
        await super().set(snapshot)


def chain(workflows: int) -> tuple[str, ...]:
    """A configured lineage of `workflows` workflow tags, each followed by an agent tag."""
    tags: list[str] = []
    for index in range(workflows):
        tags += [tag_workflow(f"w{index}"), tag_agent(f"a{index}")]
    return tuple(tags)


async def test_authoring_and_running_a_workflow_through_a_real_tool_manager() -> None:
    functions = {
        "compile": lambda controller: "compiled",
        "publish": lambda controller: "published",
    }
    tools = ToolManager()
    tools.add(create_workflow_tool(RELEASE, create_workflow_runner(), functions=functions))
    result = await tools.execute(
        {
            "id": "call-1",
            "name": "workflow",
            "arguments": {"name": "release", "steps": [{"name": "compile"}, {"name": "publish"}]},
        }
    )
    assert result == {
        "id": "call-1",
        "name": "workflow",
        "success": True,
        "value": {"status": "completed", "count": 2},
    }


async def test_a_native_store_and_the_persisted_snapshot() -> None:
    store = create_memory_workflow_store()
    tool = create_workflow_tool(INGEST, create_workflow_runner(), store=store)
    summary = await tool.execute({})
    assert summary == {"status": "completed", "count": 1, "durable": True}
    snapshot = await store.get("ingest")
    assert create_restored_workflow(snapshot).status == "completed"


async def test_lean_advertisement_and_expansion() -> None:
    tools = ToolManager()
    tools.add(create_workflow_tool(RELEASE, create_workflow_runner()))
    tools.add(create_workspace_tool())
    tools.add(create_describe_tool(tools))
    assert tools.definitions()[0]["description"] == WORKFLOW_TOOL_SUMMARY
    full = await tools.execute({"id": "d1", "name": "describe", "arguments": {"name": "workflow"}})
    assert full["value"] == WORKFLOW_TOOL_DESCRIPTION


def test_the_tool_advertises_the_flat_and_read_forms() -> None:
    tool = create_workflow_tool(RELEASE, create_workflow_runner())
    assert tool.name == WORKFLOW_TOOL_NAME == "workflow"
    assert (tool.summary, tool.description) == (WORKFLOW_TOOL_SUMMARY, WORKFLOW_TOOL_DESCRIPTION)
    parameters = tool.parameters
    assert parameters is not None
    assert parameters["type"] == "object"
    assert sorted(parameters["properties"]) == ["bail", "limit", "name", "offset", "run", "steps"]
    assert parameters.get("required", []) == []
    assert not {"anyOf", "oneOf", "allOf"} & set(parameters)
    step = parameters["properties"]["steps"]["items"]
    assert sorted(step["properties"]) == ["input", "name"]
    assert step["properties"]["name"]["description"]
    assert "describe('workflow')" in WORKFLOW_TOOL_SUMMARY
    assert tool.annotations == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
        "title": "Workflows",
    }


def test_the_description_lists_the_registered_behaviors() -> None:
    tool = create_workflow_tool(
        RELEASE, create_workflow_runner(), functions={"publish": print, "compile": print}
    )
    assert tool.description == (
        f"{WORKFLOW_TOOL_DESCRIPTION}\n\nRegistered behaviors: compile, publish."
    )
    assert tool.summary == WORKFLOW_TOOL_SUMMARY


AUTHORED = [
    (
        {},
        {
            "id": "release",
            "name": "Release",
            "phases": [
                {"id": "p", "name": "P", "tasks": [{"id": "t", "name": "T", "behavior": "work"}]}
            ],
        },
    ),
    (
        {"name": "flat", "steps": [{"name": "work", "input": {"n": 1}}, {"name": "work"}]},
        {
            "id": "flat",
            "name": "flat",
            "phases": [
                {
                    "id": "phase-0",
                    "name": "phase-0",
                    "tasks": [
                        {
                            "id": "phase-0-task-0",
                            "name": "phase-0-task-0",
                            "behavior": "work",
                            "input": {"n": 1},
                        }
                    ],
                },
                {
                    "id": "phase-1",
                    "name": "phase-1",
                    "tasks": [
                        {"id": "phase-1-task-0", "name": "phase-1-task-0", "behavior": "work"}
                    ],
                },
            ],
        },
    ),
    (
        {
            "phases": [
                {"tasks": [{"behavior": "work"}, {"name": "Named"}]},
                {"id": "later", "tasks": []},
            ]
        },
        {
            "id": "wf",
            "name": "wf",
            "phases": [
                {
                    "id": "phase-0",
                    "name": "phase-0",
                    "tasks": [
                        {"id": "phase-0-task-0", "name": "phase-0-task-0", "behavior": "work"},
                        {"id": "phase-0-task-1", "name": "Named"},
                    ],
                },
                {"id": "later", "name": "later", "tasks": []},
            ],
        },
    ),
    (
        {
            "id": "strict",
            "name": "Strict",
            "bail": True,
            "phases": [
                {
                    "id": "p",
                    "name": "P",
                    "concurrency": 2,
                    "tasks": [
                        {"id": "t", "name": "T", "behavior": "work", "retries": 1, "timeout": 500}
                    ],
                }
            ],
        },
        {
            "id": "strict",
            "name": "Strict",
            "bail": True,
            "phases": [
                {
                    "id": "p",
                    "name": "P",
                    "concurrency": 2,
                    "tasks": [
                        {"id": "t", "name": "T", "behavior": "work", "retries": 1, "timeout": 500}
                    ],
                }
            ],
        },
    ),
]


@pytest.mark.parametrize(("args", "target"), AUTHORED, ids=["empty", "flat", "draft", "strict"])
async def test_every_authoring_path_converges_on_the_strict_gate(
    args: dict[str, Any], target: dict[str, Any]
) -> None:
    wrapped = AUTHORED[0][1]
    runner = SpyRunner()
    ran: list[str] = []
    tool = create_workflow_tool(
        wrapped, runner, functions={"work": lambda controller: ran.append(controller.task.id)}
    )
    summary = await tool.execute(args)
    ((definition, _, _),) = runner.calls
    assert definition == target
    assert create_workflow_contract().is_valid(definition)
    count = sum(1 for phase in target["phases"] for _ in phase["tasks"])
    assert summary == {"status": "completed", "count": count}
    assert len(ran) == sum(1 for p in target["phases"] for t in p["tasks"] if "behavior" in t)


MALFORMED = [
    {"phases": [{"id": ""}]},
    {"phases": [{"tasks": [{"id": ""}]}]},
    {"phases": "none"},
    {"steps": [{"name": ""}]},
    {"steps": [{}]},
    {"steps": [{"name": "work", "input": [1]}]},
    {"steps": "work"},
    {"name": "", "steps": []},
    {"phases": [{"tasks": [{"retries": -1}]}]},
    {"phases": [], "bail": "true"},
    {"unknown": 1},
    {"name": "both", "steps": [{"name": "work"}], "phases": [{"tasks": []}]},
]


@pytest.mark.parametrize("args", MALFORMED)
async def test_malformed_authoring_is_tool_with_nothing_run(args: dict[str, Any]) -> None:
    runner = SpyRunner()
    store = Recording()
    ran: list[Any] = []
    tool = create_workflow_tool(RELEASE, runner, functions={"work": ran.append}, store=store)
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(args)
    assert caught.value.code == "TOOL"
    assert str(caught.value).startswith("malformed workflow definition")
    assert caught.value.context is not None
    assert caught.value.context["workflow"] == "release"
    assert (runner.calls, store.writes, ran) == ([], [], [])


async def test_the_seed_refusal_names_the_fault_and_the_wrapped_workflow() -> None:
    tool = create_workflow_tool(RELEASE, create_workflow_runner())
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"phases": [{"id": ""}]})
    assert caught.value.code == "TOOL"
    assert str(caught.value) == (
        'malformed workflow definition: phases/0/id: min 1 failed for ""; phases/0/tasks: '
        "missing array"
    )
    assert caught.value.context is not None
    assert caught.value.context["workflow"] == "release"
    assert [fault["path"] for fault in caught.value.context["faults"]] == [
        ["phases", "0", "id"],
        ["phases", "0", "tasks"],
    ]


class Lying(dict[str, Any]):
    def items(self) -> Any:
        raise RuntimeError("items")

    def keys(self) -> Any:
        raise RuntimeError("keys")

    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem")


HOSTILE = [
    {"steps": [{"name": "work", "input": {"values": {1, 2}}}]},
    {"steps": [{"name": "work", "input": {"n": math.nan}}]},
    {"steps": [{"name": "work", "input": {1: "int key"}}]},
    {"steps": ({"name": "work"},)},
    {"steps": [MappingProxyType({"name": "work"})]},
    ["steps"],
]


@pytest.mark.parametrize("args", HOSTILE, ids=["set", "nan", "int-key", "tuple", "proxy", "list"])
async def test_hostile_arguments_are_contained_before_the_runner(args: Any) -> None:
    runner = SpyRunner()
    store = Recording()
    tool = create_workflow_tool(RELEASE, runner, functions={"work": print}, store=store)
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(args)
    assert caught.value.code == "TOOL"
    assert str(caught.value).startswith("malformed workflow definition: ")
    assert (runner.calls, store.writes) == ([], [])


async def test_arguments_over_the_node_budget_name_the_budget() -> None:
    runner = SpyRunner()
    tool = create_workflow_tool(RELEASE, runner, functions={"work": print})
    steps = [{"name": "work", "input": {"rows": [0] * 1000}} for _ in range(300)]
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"steps": steps})
    assert str(caught.value) == (
        "malformed workflow definition: it holds more than 262144 JSON values "
        "(the node budget, CLONE_NODE_LIMIT)"
    )
    assert runner.calls == []


async def test_a_lying_dict_is_read_through_its_real_storage_never_its_methods() -> None:
    runner = SpyRunner()
    ran: list[str] = []
    tool = create_workflow_tool(RELEASE, runner, functions={"work": lambda c: ran.append("work")})
    summary = await tool.execute(Lying(steps=[{"name": "work"}]))
    assert summary == {"status": "completed", "count": 1}
    ((definition, _, _),) = runner.calls
    assert type(definition) is dict
    assert ran == ["work"]


async def test_an_omitted_behavior_is_a_no_op_and_an_unregistered_one_is_the_runner_s() -> None:
    tool = create_workflow_tool(RELEASE, create_workflow_runner())
    assert await tool.execute({"phases": [{"tasks": [{}]}]}) == {"status": "completed", "count": 1}
    with pytest.raises(WorkflowError) as caught:
        await tool.execute({"steps": [{"name": "ghost"}]})
    assert caught.value.code == "TRANSITION"
    tools = ToolManager()
    tools.add(tool)
    result = await tools.execute(
        {"id": "1", "name": "workflow", "arguments": {"steps": [{"name": "ghost"}]}}
    )
    assert result == {
        "id": "1",
        "name": "workflow",
        "success": False,
        "error": "task 'phase-0-task-0' behavior 'ghost' is not registered",
    }


async def test_genuine_function_errors_are_data_in_the_summary() -> None:
    def broken(controller: Any) -> None:
        raise RuntimeError("down")

    tool = create_workflow_tool(RELEASE, create_workflow_runner(), functions={"broken": broken})
    failures = [{"task": "phase-0-task-0", "origin": "handler", "message": "down"}]
    assert await tool.execute({"steps": [{"name": "broken"}]}) == {
        "status": "completed",
        "count": 1,
        "failed": 1,
        "failures": failures,
    }
    assert await tool.execute(
        {"bail": True, "phases": [{"tasks": [{"behavior": "broken"}]}, {"tasks": [{}]}]}
    ) == {"status": "failed", "count": 1, "failed": 1, "failures": failures}


async def test_a_failure_message_in_the_summary_is_cut_to_its_bound() -> None:
    def loud(controller: Any) -> None:
        raise RuntimeError("x" * (MAX_FAILURE_MESSAGE * 3))

    tool = create_workflow_tool(RELEASE, create_workflow_runner(), functions={"loud": loud})
    answer = await tool.execute({"steps": [{"name": "loud"}]})
    message = answer["failures"][0]["message"]
    assert (len(message), message[-1]) == (MAX_FAILURE_MESSAGE, "…")


async def test_root_plus_eight_nested_workflows_run_and_a_ninth_is_refused() -> None:
    runner = SpyRunner()
    store = Recording()
    allowed = create_workflow_tool(RELEASE, runner, lineage=chain(MAX_WORKFLOW_CHAIN), store=store)
    assert (await allowed.execute({}))["status"] == "completed"
    assert len(runner.calls) == 1
    writes = len(store.writes)
    refused = create_workflow_tool(
        RELEASE, runner, lineage=chain(MAX_WORKFLOW_CHAIN + 1), store=store
    )
    with pytest.raises(ToolboxError) as caught:
        await refused.execute({})
    assert caught.value.code == "DEPTH"
    assert str(caught.value) == "nested workflow exceeds max depth 8"
    assert caught.value.context == {"workflow": "release", "depth": 9, "max": 8}
    assert (len(runner.calls), len(store.writes)) == (1, writes)


async def test_a_repeated_workflow_id_is_a_cycle_refused_before_running() -> None:
    runner = SpyRunner()
    store = Recording()
    lineage = (tag_workflow("release"), tag_agent("reviewer"))
    tool = create_workflow_tool(RELEASE, runner, lineage=lineage, store=store)
    for args in ({}, {"name": "release", "steps": []}):
        with pytest.raises(ToolboxError) as caught:
            await tool.execute(args)
        assert caught.value.code == "DEPTH"
        assert str(caught.value) == "workflow 'release' is already an ancestor (cycle)"
        assert caught.value.context == {"workflow": "release", "lineage": list(lineage)}
    assert (runner.calls, store.writes) == ([], [])
    assert (await tool.execute({"name": "other", "steps": []}))["status"] == "completed"


@pytest.mark.parametrize(
    ("lineage", "message"),
    [
        (["agent:first"], "workflow lineage must alternate unique workflow and agent tags"),
        (
            ["workflow:a", "workflow:b"],
            "workflow lineage must alternate unique workflow and agent tags",
        ),
        (["workflow:"], "workflow lineage must alternate unique workflow and agent tags"),
        ("workflow:a", "workflow lineage must alternate unique workflow and agent tags"),
        (["workflow:a"], "workflow tool lineage must end with an agent tag"),
    ],
)
def test_a_malformed_configured_lineage_is_tool(lineage: Any, message: str) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_workflow_tool(RELEASE, create_workflow_runner(), lineage=lineage)
    assert (caught.value.code, str(caught.value)) == ("TOOL", message)


@pytest.mark.parametrize(
    "definition",
    [
        {"id": "", "name": "x", "phases": []},
        {"id": "x"},
        {"id": "x", "name": "x", "phases": [], "z": 1},
        "x",
        {"id": "x", "name": "x", "phases": [], "v": {1, 2}},
    ],
)
def test_a_malformed_wrapped_definition_is_refused_at_construction(definition: Any) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_workflow_tool(definition, create_workflow_runner())
    assert caught.value.code == "TOOL"
    assert str(caught.value).startswith("malformed workflow definition")


async def test_the_registry_is_built_only_when_functions_or_agents_are_given() -> None:
    runner = SpyRunner()
    await create_workflow_tool(INGEST, runner).execute({})
    functions = {"work": lambda controller: "v"}
    await create_workflow_tool(INGEST, runner, functions=functions).execute({})
    (_, none, _), (_, registry, _) = runner.calls
    assert none is None
    assert isinstance(registry, MappingProxyType)
    assert dict(registry) == functions


async def test_configured_functions_are_copied_at_construction() -> None:
    functions: dict[str, Any] = {"work": lambda controller: "first"}
    tool = create_workflow_tool(RELEASE, create_workflow_runner(), functions=functions)
    functions["work"] = lambda controller: "second"
    functions["late"] = lambda controller: "late"
    runner_result = await tool.execute({"steps": [{"name": "work"}]})
    assert runner_result == {"status": "completed", "count": 1}
    with pytest.raises(WorkflowError):
        await tool.execute({"steps": [{"name": "late"}]})


async def test_repeated_flat_names_replace_the_same_snapshot() -> None:
    store = create_memory_workflow_store()
    tool = create_workflow_tool(
        RELEASE, create_workflow_runner(), store=store, functions={"w": print}
    )
    await tool.execute({"name": "nightly", "steps": [{"name": "w"}]})
    await tool.execute({"name": "nightly", "steps": [{"name": "w"}, {"name": "w"}]})
    snapshot = await store.get("nightly")
    assert snapshot is not None
    assert len(snapshot["phases"]) == 2
    assert await store.get("release") is None


async def test_without_a_store_the_summary_has_no_durability() -> None:
    summary = await create_workflow_tool(INGEST, create_workflow_runner()).execute({})
    assert summary == {"status": "completed", "count": 1}


async def test_a_failing_store_reaches_the_summary_as_data() -> None:
    class Broken(MemoryWorkflowStore):
        async def set(self, snapshot: WorkflowSnapshot) -> None:
            raise OSError("read-only file system")

    summary = await create_workflow_tool(INGEST, create_workflow_runner(), store=Broken()).execute(
        {}
    )
    assert summary == {
        "status": "stopped",
        "count": 0,
        "durable": False,
        "fault": {
            "origin": "persistence",
            "checkpoint": "initial",
            "message": "read-only file system",
        },
    }


async def test_agents_are_adapted_only_after_every_other_check() -> None:
    runner = SpyRunner()
    tool = create_workflow_tool(RELEASE, runner, agents={"review": object()})  # type: ignore[dict-item]
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"steps": [{"name": "review"}]})
    assert caught.value.code == "TOOL"
    assert caught.value.context == {"agent": "review"}
    collide = create_workflow_tool(
        RELEASE,
        runner,
        functions={"review": print},
        agents={"review": object()},  # type: ignore[dict-item]
    )
    with pytest.raises(ToolboxError, match="collides with an agent"):
        await collide.execute({})
    assert runner.calls == []


@pytest.mark.parametrize("name", ["get", "__class__", "keys", "__proto__"])
async def test_an_unresolved_name_is_the_runner_s_own_transition_error(name: str) -> None:
    raised: list[BaseException] = []

    class Watching(SpyRunner):
        async def execute(self, definition: Mapping[str, Any], **options: Any) -> WorkflowResult:
            try:
                return await super().execute(definition, **options)
            except BaseException as error:
                raised.append(error)
                raise

    runner = Watching()
    tool = create_workflow_tool(RELEASE, runner, functions={"known": print})
    with pytest.raises(WorkflowError) as caught:
        await tool.execute({"steps": [{"name": name}]})
    assert caught.value is raised[0]
    assert caught.value.code == "TRANSITION"
    ((_, registry, _),) = runner.calls
    assert name not in registry
    registered = create_workflow_tool(RELEASE, create_workflow_runner(), functions={name: print})
    assert await registered.execute({"steps": [{"name": name}]}) == {
        "status": "completed",
        "count": 1,
    }


async def test_a_tree_larger_than_the_task_cap_is_refused_before_running() -> None:
    runner = SpyRunner()
    tool = create_workflow_tool(RELEASE, runner)
    steps = [{"name": "w"}] * (MAX_WORKFLOW_TASKS + 1)
    with pytest.raises(ToolboxError) as flat:
        await tool.execute({"steps": steps})
    assert flat.value.code == "TOOL"
    phases = [{"tasks": [{}] * 600}, {"tasks": [{}] * 401}]
    with pytest.raises(ToolboxError) as nested:
        await tool.execute({"phases": phases})
    assert str(nested.value) == "a workflow may hold at most 1000 tasks, not 1001"
    assert nested.value.context == {"workflow": "release", "tasks": 1001, "max": 1000}
    assert runner.calls == []
    phases[1]["tasks"] = [{}] * 400
    assert await tool.execute({"phases": phases}) == {"status": "completed", "count": 1000}


def test_the_guide_pins_the_seed_pattern_of_authoring_through_a_real_manager() -> None:
    from conftest import ROOT
    from support.fences import pattern, run

    body = pattern(
        ROOT / "docs" / "guides" / "toolbox.md",
        "Authoring and running a workflow through the tool with a real `ToolManager`",
    )
    assert "create_workflow_tool(definition, create_workflow_runner(), functions=functions)" in body
    assert '"value": {"status": "completed", "count": 2}' in body
    namespace = run(body, "toolbox.md#workflow-pattern")
    assert namespace["result"]["value"] == {"status": "completed", "count": 2}


async def test_misspelled_workflow_keys_are_refused_with_their_path_and_nearest_name() -> None:
    tool = create_workflow_tool(RELEASE, create_workflow_runner(), functions={"a": lambda _: None})
    with pytest.raises(ToolboxError) as flat:
        await tool.execute({"name": "x", "steps": [{"name": "a", "inptu": {}}]})
    with pytest.raises(ToolboxError) as nested:
        await tool.execute({"phases": [{"tasks": [{"behavoir": "a"}]}]})
    assert str(flat.value) == (
        'malformed workflow definition: unknown argument "inptu" in steps[0] (did you mean input?)'
    )
    assert str(nested.value) == (
        'malformed workflow definition: unknown argument "behavoir" in phases[0].tasks[0] '
        "(did you mean behavior?)"
    )
    ran = await tool.execute({"name": "x", "steps": [{"name": "a", "input": {"free": 1}}]})
    assert ran["status"] == "completed"


async def test_reading_a_run_refuses_what_it_cannot_read() -> None:
    kept = create_workflow_tool(RELEASE, create_workflow_runner(), store=MemoryWorkflowStore())
    unkept = create_workflow_tool(RELEASE, create_workflow_runner())
    refusals = []
    for tool, args in [
        (unkept, {"run": "release"}),
        (kept, {"run": "release"}),
        (kept, {"run": "release", "limit": 51}),
        (kept, {"run": "release", "offset": -1}),
        (kept, {"run": ""}),
        (kept, {"run": "release", "steps": []}),
    ]:
        with pytest.raises(ToolboxError) as caught:
            await tool.execute(args)
        refusals.append(str(caught.value))
    assert refusals == [
        "no runs are kept here, so none can be read",
        "run: no stored run 'release'",
        "malformed workflow definition: limit: max 50 failed for 51",
        "malformed workflow definition: offset: min 0 failed for -1",
        'malformed workflow definition: run: min 1 failed for ""',
        'malformed workflow definition: unknown argument "steps" (known: run, offset, limit)',
    ]


async def test_a_cancelled_call_stops_its_run_and_stores_it_stopped() -> None:
    store = MemoryWorkflowStore()
    first = anyio.Event()

    async def slow(controller: Any) -> str:
        first.set()
        await anyio.sleep_forever()
        return "never"

    tool = create_workflow_tool(
        RELEASE, create_workflow_runner(), functions={"slow": slow}, store=store
    )
    async with anyio.create_task_group() as group:
        group.start_soon(tool.execute, {"steps": [{"name": "slow"}, {"name": "slow"}]})
        await first.wait()
        group.cancel_scope.cancel()
    page = await tool.execute({"run": "wf"})
    assert (page["status"], [task["status"] for task in page["tasks"]]) == (
        "stopped",
        ["skipped", "skipped"],
    )


class Resuming(ToolContext):
    """The caller of a call that continues an interrupted run (a task taken over)."""

    resume = True


class Refusing(MemoryWorkflowStore):
    """A store that says when it has refused a lease."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = anyio.Event()

    async def acquire(self, id: str, owner: str, ttl: int) -> None:
        try:
            await super().acquire(id, owner, ttl)
        except WorkflowError:
            self.refused.set()
            raise


async def test_a_resumed_call_waits_out_the_lease_its_interrupted_runner_still_holds() -> None:
    store = MemoryWorkflowStore()
    await store.acquire("job", "a runner that died", 300)
    ran: list[str] = []
    tool = create_workflow_tool(
        RELEASE, create_workflow_runner(), functions={"work": ran.append}, store=store
    )
    call = {"name": "job", "steps": [{"name": "work"}]}
    with pytest.raises(WorkflowError) as fresh:
        await tool.execute(call)
    with anyio.fail_after(10):
        resumed = await tool.execute(call, Resuming())
    assert fresh.value.code == "LEASE"
    assert resumed == {"status": "completed", "count": 1, "durable": True}
    assert len(ran) == 1


async def test_a_resumed_call_waiting_on_a_live_runners_lease_is_cancelled_with_its_caller() -> (
    None
):
    store = Refusing()
    await store.acquire("job", "a runner still running it", 60_000)
    ran: list[str] = []
    tool = create_workflow_tool(
        RELEASE, create_workflow_runner(), functions={"work": ran.append}, store=store
    )
    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            group.start_soon(tool.execute, {"name": "job", "steps": [{"name": "work"}]}, Resuming())
            await store.refused.wait()
            group.cancel_scope.cancel()
    assert ran == []
