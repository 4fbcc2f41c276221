"""The draft contract, draft completion, step expansion, the run summary and the shapes."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.contract import ParseError, create_contract
from orkestrel.toolbox import (
    WORKFLOW_TOOL_DESCRIPTION,
    WORKFLOW_TOOL_FLAT_EXAMPLE,
    WORKFLOW_TOOL_NESTED_EXAMPLE,
    complete_draft,
    complete_phase_draft,
    complete_task_draft,
    create_workflow_draft_contract,
    expand_steps,
    phase_draft_shape,
    step_shape,
    summarize_workflow,
    task_draft_shape,
    workflow_draft_shape,
    workflow_steps_shape,
)
from orkestrel.workflow import (
    WorkflowResult,
    create_memory_workflow_store,
    create_workflow_contract,
    create_workflow_runner,
)

pytestmark = pytest.mark.anyio

PHASE = {
    "id": "phase-0",
    "name": "phase-0",
    "tasks": [{"id": "phase-0-task-0", "name": "phase-0-task-0", "behavior": "compile"}],
}


def test_the_draft_contract_accepts_omitted_ids_and_refuses_empty_ones() -> None:
    contract = create_workflow_draft_contract()
    draft = {"phases": [{"tasks": [{"behavior": "compile"}]}]}
    assert contract.parse(draft) == draft
    for bad in (
        {"id": "", "phases": []},
        {"phases": [{"name": "", "tasks": []}]},
        {"phases": [], "bail": "true"},
    ):
        with pytest.raises(ParseError):
            contract.parse(bad)
    assert contract.schema == create_contract(workflow_draft_shape).schema


def test_completion_fills_ids_by_position_and_names_from_ids() -> None:
    assert complete_task_draft({"behavior": "compile"}, "phase-0", 0) == {
        "id": "phase-0-task-0",
        "name": "phase-0-task-0",
        "behavior": "compile",
    }
    assert complete_phase_draft({"tasks": [{"behavior": "compile"}]}, 0) == PHASE
    assert complete_draft({"phases": [{"tasks": [{"behavior": "compile"}]}]}) == {
        "id": "wf",
        "name": "wf",
        "phases": [PHASE],
    }


def test_completion_keeps_what_is_given_in_order_and_adds_nothing() -> None:
    task = complete_task_draft(
        {
            "timeout": 5,
            "retries": 1,
            "behavior": "b",
            "description": "d",
            "name": "N",
            "input": {"x": 1},
        },
        "p",
        3,
    )
    assert list(task) == ["id", "name", "description", "behavior", "retries", "timeout", "input"]
    assert (task["id"], task["name"]) == ("p-task-3", "N")
    phase = complete_phase_draft({"bail": True, "concurrency": 2, "id": "mine", "tasks": [{}]}, 7)
    assert list(phase) == ["id", "name", "tasks", "concurrency", "bail"]
    assert phase["tasks"] == [{"id": "mine-task-0", "name": "mine-task-0"}]
    flow = complete_draft({"bail": False, "name": "Named", "phases": []})
    assert flow == {"id": "wf", "name": "Named", "phases": [], "bail": False}


def test_expand_steps_makes_one_one_task_phase_per_step() -> None:
    assert expand_steps({"steps": [{"name": "compile"}]}) == complete_draft(
        {"phases": [{"tasks": [{"behavior": "compile"}]}]}
    )
    assert expand_steps({"name": "release", "steps": []}) == {
        "id": "release",
        "name": "release",
        "phases": [],
    }
    expanded = expand_steps(
        {"name": "r", "steps": [{"name": "a", "input": {"n": 1}}, {"name": "b"}]}
    )
    assert [phase["tasks"] for phase in expanded["phases"]] == [
        [{"id": "phase-0-task-0", "name": "phase-0-task-0", "behavior": "a", "input": {"n": 1}}],
        [{"id": "phase-1-task-0", "name": "phase-1-task-0", "behavior": "b"}],
    ]
    assert create_workflow_contract().is_valid(expanded)


async def test_summarize_workflow_adds_durable_and_fault_exactly_when_set() -> None:
    runner = create_workflow_runner()
    definition = {
        "id": "w",
        "name": "W",
        "phases": [{"id": "p", "name": "P", "tasks": [{"id": "t", "name": "T"}]}],
    }
    bare = await runner.execute(definition)
    assert summarize_workflow(bare) == {"status": "completed", "count": 1}
    stored = await runner.execute(definition, store=create_memory_workflow_store())
    assert summarize_workflow(stored) == {"status": "completed", "count": 1, "durable": True}
    fault: Any = {"origin": "persistence", "checkpoint": "final", "message": "m"}
    faulted = WorkflowResult(bare.workflow, "completed", bare.results, False, fault)
    summary = summarize_workflow(faulted)
    assert summary == {"status": "completed", "count": 1, "durable": False, "fault": fault}
    assert summary["fault"] is not fault


def test_the_shapes_compile_and_the_examples_are_valid() -> None:
    for shape in (
        task_draft_shape,
        phase_draft_shape,
        workflow_draft_shape,
        step_shape,
        workflow_steps_shape,
    ):
        assert create_contract(shape).schema["type"] == "object"
    steps = create_contract(workflow_steps_shape)
    flat = {"name": "release", "steps": [{"name": "compile"}, {"name": "publish"}]}
    assert steps.is_valid(flat)
    assert dict(WORKFLOW_TOOL_FLAT_EXAMPLE)["name"] == "release"
    assert create_workflow_contract().is_valid(
        {
            "id": "release",
            "name": "Release",
            "phases": [
                {
                    "id": "build",
                    "name": "Build",
                    "tasks": [{"id": "compile", "name": "Compile", "behavior": "compile"}],
                }
            ],
        }
    )
    with pytest.raises(TypeError):
        WORKFLOW_TOOL_NESTED_EXAMPLE["id"] = "changed"  # type: ignore[index]
    assert (
        '{"name":"release","steps":[{"name":"compile"},{"name":"publish"}]}'
        in WORKFLOW_TOOL_DESCRIPTION
    )
    assert '"behavior":"compile"' in WORKFLOW_TOOL_DESCRIPTION
