"""`create_tool_function` and `create_workflow_functions`: a registered tool as a workflow
function, exact at the JSON boundary, and the read-only registry."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from orkestrel.abort import AbortController
from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import (
    ToolboxError,
    create_tool_function,
    create_workflow_functions,
    create_workflow_tool,
    tag_agent,
    tag_workflow,
)
from orkestrel.workflow import (
    PhaseContext,
    TaskContext,
    TaskController,
    WorkflowContext,
    WorkflowError,
    create_workflow_runner,
)

pytestmark = pytest.mark.anyio

SHIP = {
    "id": "ship",
    "name": "Ship",
    "phases": [
        {
            "id": "review",
            "name": "Review",
            "tasks": [{"id": "r", "name": "Review", "behavior": "review"}],
        },
        {
            "id": "publish",
            "name": "Publish",
            "tasks": [
                {
                    "id": "p",
                    "name": "Publish",
                    "behavior": "publish",
                    "input": {"channel": "stable"},
                }
            ],
        },
    ],
}


def controller(input: dict[str, Any]) -> TaskController:
    workflow = WorkflowContext("w", "W", None)
    task = TaskContext("t", "T", None, PhaseContext("p", "P", None, workflow))
    return TaskController(AbortController().signal, 1, task, input, lambda: ())


def echo_tools(handler: Any = None) -> ToolManager:
    tools = ToolManager()
    tools.add(Tool(name="echo", execute=handler or (lambda args: {"got": args})))
    return tools


async def test_a_tool_function_runs_the_tool_with_the_task_input() -> None:
    function = create_tool_function(echo_tools(), "echo")
    assert await function(controller({"a": [1, 2]})) == {"got": {"a": [1, 2]}}


async def test_the_tool_is_resolved_on_every_call() -> None:
    tools = ToolManager()
    function = create_tool_function(tools, "late")
    with pytest.raises(ToolboxError) as caught:
        await function(controller({}))
    assert (caught.value.code, str(caught.value), caught.value.context) == (
        "TOOL",
        "tool 'late' is not registered",
        {"tool": "late"},
    )
    tools.add(Tool(name="late", execute=lambda args: "here now"))
    assert await function(controller({})) == "here now"


async def test_a_genuine_tool_error_keeps_its_identity() -> None:
    error = LookupError("no such row")

    def fail(args: Any) -> None:
        raise error

    with pytest.raises(LookupError) as caught:
        await create_tool_function(echo_tools(fail), "echo")(controller({}))
    assert caught.value is error


def test_the_live_workflow_tool_cannot_be_adapted() -> None:
    with pytest.raises(ToolboxError) as caught:
        create_tool_function(ToolManager(), "workflow")
    assert (caught.value.code, str(caught.value), caught.value.context) == (
        "TOOL",
        "tool 'workflow' is reserved for live workflows",
        {"tool": "workflow"},
    )


@pytest.mark.parametrize("value", [None, True, 0, 1.5, "text", [1, "a", None], {"k": {"n": [1]}}])
async def test_json_results_pass(value: Any) -> None:
    assert (
        await create_tool_function(echo_tools(lambda args: value), "echo")(controller({})) == value
    )


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), {1, 2}, (1, 2), object(), {3: "x"}], ids=str
)
async def test_non_json_results_are_tool(value: Any) -> None:
    with pytest.raises(ToolboxError) as caught:
        await create_tool_function(echo_tools(lambda args: value), "echo")(controller({}))
    assert (caught.value.code, str(caught.value)) == (
        "TOOL",
        "tool 'echo' returned a non-JSON value",
    )


async def test_a_cyclic_result_is_tool() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    with pytest.raises(ToolboxError):
        await create_tool_function(echo_tools(lambda args: cyclic), "echo")(controller({}))


async def test_composing_opaque_leaves_into_a_registry() -> None:
    published: list[Any] = []
    tools = ToolManager()
    tools.add(Tool(name="publish", execute=lambda args: published.append(args) or "published"))
    runner = create_workflow_runner()
    leaves = {"publish": create_tool_function(tools, "publish"), "review": lambda c: "Looks good."}
    functions = create_workflow_functions(runner, functions=leaves)
    assert sorted(functions) == ["publish", "review"]
    result = await runner.execute(SHIP, functions=functions)
    assert result.status == "completed"
    assert [item.result["value"] for item in result.results] == ["Looks good.", "published"]
    assert published == [{"channel": "stable"}]
    tool = create_workflow_tool(SHIP, runner, functions=leaves)
    assert await tool.execute({}) == {"status": "completed", "count": 2}


def test_the_registry_is_a_read_only_snapshot() -> None:
    source: dict[str, Any] = {"a": print}
    registry = create_workflow_functions(create_workflow_runner(), functions=source)
    assert isinstance(registry, MappingProxyType)
    source["b"] = print
    assert list(registry) == ["a"]
    with pytest.raises(TypeError):
        registry["c"] = print  # type: ignore[index]
    empty = create_workflow_functions(create_workflow_runner())
    assert (dict(empty), isinstance(empty, MappingProxyType)) == ({}, True)


@pytest.mark.parametrize(
    "name", ["get", "__class__", "keys", "__proto__", "copy", "mro", "__getitem__"]
)
async def test_inherited_names_are_transition_and_registered_ones_run(name: str) -> None:
    runner = create_workflow_runner()
    definition = {
        "id": "w",
        "name": "W",
        "phases": [{"id": "p", "name": "P", "tasks": [{"id": "t", "name": "T", "behavior": name}]}],
    }
    with pytest.raises(WorkflowError) as caught:
        await runner.execute(
            definition, functions=create_workflow_functions(runner, functions={"x": print})
        )
    assert caught.value.code == "TRANSITION"
    registry = create_workflow_functions(runner, functions={name: lambda c: name})
    result = await runner.execute(definition, functions=registry)
    assert result.results[0].result == {"success": True, "value": name}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"functions": {"a": "not callable"}}, "workflow function 'a' is not callable"),
        ({"functions": {1: print}}, "workflow functions names must be non-empty strings"),
        ({"functions": {"": print}}, "workflow functions names must be non-empty strings"),
        ({"functions": [print]}, "workflow functions must be a mapping of name to value"),
        ({"agents": "x"}, "workflow agents must be a mapping of name to value"),
        (
            {"functions": {"a": print}, "agents": {"a": object()}},
            "workflow function 'a' collides with an agent",
        ),
        (
            {"agents": {"b": object()}},
            "workflow agent 'b' is not an agent (it needs an id, a status, a context and generate)",
        ),
        (
            {"lineage": ["agent:a"]},
            "workflow lineage must alternate unique workflow and agent tags",
        ),
        (
            {"lineage": [tag_workflow("w"), tag_agent("a")]},
            "workflow functions lineage must end with a workflow tag",
        ),
    ],
)
def test_malformed_compositions_are_tool(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_workflow_functions(create_workflow_runner(), **options)
    assert (caught.value.code, str(caught.value)) == ("TOOL", message)


def test_a_lineage_ending_in_a_workflow_is_accepted() -> None:
    lineage = (tag_workflow("a"), tag_agent("x"), tag_workflow("b"))
    registry = create_workflow_functions(
        create_workflow_runner(), lineage=lineage, functions={"f": print}
    )
    assert list(registry) == ["f"]
