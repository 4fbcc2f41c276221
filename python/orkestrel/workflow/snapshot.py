"""Exact restore of a `WorkflowSnapshot` into an inspectable tree, and what resume copies."""

from __future__ import annotations

from typing import Any

from orkestrel.contract import ContractError, clone_json_value, create_contract
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.helpers import faults_of
from orkestrel.workflow.shapes import workflow_snapshot_shape
from orkestrel.workflow.workflow import (
    TaskNode,
    Workflow,
    build_tree,
    mark,
    phases_of,
    place,
)

_CONTRACT = create_contract(workflow_snapshot_shape)
_STATE_KEYS = ("status", "result", "settled", "metadata", "attempts")
_SETTLED = {"completed": True, "failed": False}


def _refuse(message: str, context: dict[str, Any] | None = None) -> WorkflowError:
    return WorkflowError("RESTORE", f"malformed workflow snapshot: {message}", context)


def _definition_of(snapshot: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "name", "description", "bail")
    definition = {key: snapshot[key] for key in keep if key in snapshot}
    definition["phases"] = [
        {
            **{
                key: phase[key]
                for key in ("id", "name", "description", "concurrency", "bail")
                if key in phase
            },
            "tasks": [
                {key: value for key, value in task.items() if key not in _STATE_KEYS}
                for task in phase["tasks"]
            ],
        }
        for phase in snapshot["phases"]
    ]
    return definition


def _check_ids(snapshot: dict[str, Any]) -> None:
    phases: set[str] = set()
    tasks: set[str] = set()
    for phase in snapshot["phases"]:
        if phase["id"] in phases:
            raise _refuse(f"phase id '{phase['id']}' appears twice", {"phase": phase["id"]})
        phases.add(phase["id"])
        for task in phase["tasks"]:
            if task["id"] in tasks:
                raise _refuse(f"task id '{task['id']}' appears twice", {"task": task["id"]})
            tasks.add(task["id"])


def _restore_task(node: TaskNode, task: dict[str, Any]) -> None:
    status = task["status"]
    outcome = task.get("result")
    expected = _SETTLED.get(status)
    if (outcome is None) != (expected is None) or (
        outcome is not None and outcome["success"] is not expected
    ):
        raise _refuse(
            f"task '{node.id}' is {status} with an outcome that does not fit", {"task": node.id}
        )
    if ("settled" in task) != (outcome is not None):
        raise _refuse(f"task '{node.id}' has a settle time exactly when settled", {"task": node.id})
    if expected is not None and task["attempts"] < 1:
        raise _refuse(f"task '{node.id}' settled without an attempt", {"task": node.id})
    node.status = status
    node.attempts = int(task["attempts"])
    node.metadata = task["metadata"]
    if outcome is not None:
        node.status = "running"
        node.settle(outcome, int(task["settled"]))


def create_restored_workflow(snapshot: Any) -> Workflow:
    """Rebuilds the inspectable `Workflow` a snapshot describes, exactly: its `status`,
    `results()` and `snapshot()` round-trip. An inexact or inconsistent snapshot (unknown keys,
    wrong types, duplicate ids, a status its tasks cannot have) raises `RESTORE`."""
    if not _CONTRACT.is_valid(snapshot):
        faults = faults_of(_CONTRACT, snapshot)
        raise _refuse("it does not satisfy the snapshot shape", {"faults": faults})
    try:
        owned: dict[str, Any] = clone_json_value(snapshot)
    except ContractError as error:
        raise _refuse(str(error)) from None
    _check_ids(owned)
    tree = build_tree(_definition_of(owned), int(owned["created"]))
    for node, phase in zip(phases_of(tree), owned["phases"], strict=True):
        node.reached = phase["status"] != "pending"
        for task_node, task in zip(node.tasks, phase["tasks"], strict=True):
            _restore_task(task_node, task)
        if node.status != phase["status"]:
            raise _refuse(
                f"phase '{phase['id']}' is {phase['status']} but its tasks make it {node.status}",
                {"phase": phase["id"]},
            )
    status = owned["status"]
    mark(tree, stopped=status == "stopped", finished=status != "pending" and status != "running")
    place(tree, int(owned["created"]), int(owned["updated"]))
    if tree.status != status:
        raise _refuse(
            f"workflow '{owned['id']}' is {status} but its phases make it {tree.status}",
            {"workflow": owned["id"]},
        )
    return tree
