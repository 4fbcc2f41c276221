"""The lenient authoring helpers: the draft contract, draft completion, step expansion and the
run summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from orkestrel.contract import Contract, create_contract
from orkestrel.toolbox.workflow.constants import MAX_WORKFLOW_FAILURES
from orkestrel.toolbox.workflow.helpers import cut_message
from orkestrel.toolbox.workflow.shapes import workflow_draft_shape
from orkestrel.toolbox.workflow.types import (
    PhaseDraft,
    TaskDraft,
    WorkflowDraft,
    WorkflowSteps,
    WorkflowToolFailure,
    WorkflowToolResult,
)
from orkestrel.workflow import (
    PhaseDefinition,
    TaskDefinition,
    TaskResult,
    WorkflowDefinition,
    WorkflowResult,
)

_TASK_TAIL = ("behavior", "retries", "timeout", "input")
_PHASE_TAIL = ("concurrency", "bail")


def create_workflow_draft_contract() -> Contract:
    """Compiles the lenient draft contract the workflow tool parses a nested tree with: ids and
    names are optional at every level, and an explicitly empty one is still refused."""
    return create_contract(workflow_draft_shape)


def _head(draft: Mapping[str, Any], default: str) -> dict[str, Any]:
    id = draft.get("id", default)
    head: dict[str, Any] = {"id": id, "name": draft.get("name", id)}
    if "description" in draft:
        head["description"] = draft["description"]
    return head


def complete_task_draft(task: TaskDraft, phase: str, index: int) -> TaskDefinition:
    """Completes one draft task: a missing id becomes `<phase>-task-<index>`, a missing name the
    id; every other key present is kept, none is added."""
    out = _head(task, f"{phase}-task-{index}")
    out.update((key, task[key]) for key in _TASK_TAIL if key in task)  # type: ignore[literal-required]
    return out  # type: ignore[return-value]


def complete_phase_draft(phase: PhaseDraft, index: int) -> PhaseDefinition:
    """Completes one draft phase: a missing id becomes `phase-<index>`, a missing name the id,
    and each task is completed in place order."""
    out = _head(phase, f"phase-{index}")
    out["tasks"] = [
        complete_task_draft(task, out["id"], position)
        for position, task in enumerate(phase["tasks"])
    ]
    out.update((key, phase[key]) for key in _PHASE_TAIL if key in phase)  # type: ignore[literal-required]
    return out  # type: ignore[return-value]


def complete_draft(draft: WorkflowDraft) -> WorkflowDefinition:
    """Completes a `WorkflowDraft` into a strict `WorkflowDefinition`: a missing id is filled in
    by position (`wf`, `phase-<i>`, `phase-<i>-task-<j>`), a missing name defaults to its id."""
    out = _head(draft, "wf")
    out["phases"] = [
        complete_phase_draft(phase, index) for index, phase in enumerate(draft["phases"])
    ]
    if "bail" in draft:
        out["bail"] = draft["bail"]
    return out  # type: ignore[return-value]


def expand_steps(steps: WorkflowSteps) -> WorkflowDefinition:
    """Expands the flat `{name?, steps}` form into a strict `WorkflowDefinition`: step `i`
    becomes phase `phase-i` holding the one task `phase-i-task-0` whose behavior is the step's
    name; `name` is the workflow's id and name."""
    draft: dict[str, Any] = {}
    if "name" in steps:
        draft["id"] = draft["name"] = steps["name"]
    if "bail" in steps:
        draft["bail"] = steps["bail"]
    tasks = []
    for step in steps["steps"]:
        task: dict[str, Any] = {"behavior": step["name"]}
        if "input" in step:
            task["input"] = step["input"]
        tasks.append({"tasks": [task]})
    draft["phases"] = tasks
    return complete_draft(draft)  # type: ignore[arg-type]


def summarize_failures(results: Iterable[TaskResult]) -> tuple[int, list[WorkflowToolFailure]]:
    """How many of `results` failed, and the first `MAX_WORKFLOW_FAILURES` of them as
    `{task, origin, message}` with each message cut to `MAX_FAILURE_MESSAGE` characters."""
    failed = [entry for entry in results if not entry.result["success"]]
    named: list[WorkflowToolFailure] = []
    for entry in failed[:MAX_WORKFLOW_FAILURES]:
        error = entry.result["error"]  # type: ignore[typeddict-item]
        message = cut_message(error["message"])
        named.append({"task": entry.task.id, "origin": error["origin"], "message": message})
    return len(failed), named


def summarize_workflow(result: WorkflowResult) -> WorkflowToolResult:
    """Builds the plain summary the workflow tool returns for a finished run: `{status, count}`,
    plus `failed` and `failures` (and `more`, how many were left out) when a task failed, and
    `durable` and `fault` exactly when the runner set them."""
    failed, failures = summarize_failures(result.results)
    summary: WorkflowToolResult = {"status": result.status, "count": len(result.results)}
    if failures:
        summary["failed"] = failed
        summary["failures"] = failures
        if failed > len(failures):
            summary["more"] = failed - len(failures)
    if result.durable is not None:
        summary["durable"] = result.durable
    if result.fault is not None:
        summary["fault"] = dict(result.fault)  # type: ignore[typeddict-item]
    return summary
