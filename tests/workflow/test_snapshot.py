"""Snapshots and the exact, inspect-only restore."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowError,
    WorkflowSnapshot,
    create_restored_workflow,
    create_workflow_runner,
)
from workflow.samples import phase, task, workflow

pytestmark = pytest.mark.anyio


def bad(controller: TaskControllerInterface) -> None:
    raise RuntimeError("bad")


DEFINITION = workflow(
    phase("one", task("a", "ok", input={"n": 1}, retries=1, timeout=1000), task("b", "bad")),
    phase("two", task("c"), concurrency=2, bail=False, description="second"),
    id="shipping",
    description="a sample",
)


async def finished() -> Any:
    return await create_workflow_runner().execute(
        DEFINITION, functions={"ok": lambda controller: {"value": [1, "x"]}, "bad": bad}
    )


async def test_a_snapshot_is_exact_json_of_the_tree() -> None:
    result = await finished()
    snapshot = result.workflow.snapshot()
    (a, b), (c,) = (p["tasks"] for p in snapshot["phases"])
    assert snapshot["id"] == "shipping"
    assert snapshot["description"] == "a sample"
    assert (snapshot["status"], snapshot["bail"]) == ("completed", False)
    assert snapshot["created"] <= snapshot["updated"]
    assert [p["status"] for p in snapshot["phases"]] == ["failed", "completed"]
    assert snapshot["phases"][1]["concurrency"] == 2
    assert a == {
        "id": "a",
        "name": "A",
        "status": "completed",
        "result": {"success": True, "value": {"value": [1, "x"]}},
        "settled": a["settled"],
        "metadata": {"n": 1},
        "attempts": 1,
        "behavior": "ok",
        "retries": 1,
        "timeout": 1000,
        "input": {"n": 1},
    }
    assert b["result"] == {"success": False, "error": {"origin": "handler", "message": "bad"}}
    assert c == {
        "id": "c",
        "name": "C",
        "status": "completed",
        "result": {"success": True, "value": None},
        "settled": c["settled"],
        "metadata": {},
        "attempts": 1,
    }


async def test_a_snapshot_is_a_fresh_copy() -> None:
    result = await finished()
    snapshot = result.workflow.snapshot()
    snapshot["phases"][0]["tasks"][0]["result"]["value"]["value"].append("mutated")
    assert result.workflow.snapshot()["phases"][0]["tasks"][0]["result"]["value"] == {
        "value": [1, "x"]
    }


async def test_restore_round_trips_status_results_and_snapshot() -> None:
    result = await finished()
    snapshot = result.workflow.snapshot()
    restored = create_restored_workflow(snapshot)
    assert restored.snapshot() == snapshot
    assert (restored.id, restored.name, restored.description, restored.status) == (
        "shipping",
        "SHIPPING",
        "a sample",
        "completed",
    )
    assert (restored.created, restored.updated) == (snapshot["created"], snapshot["updated"])
    assert restored.results() == result.results
    assert repr(restored) == "<Workflow id='shipping' status='completed'>"


def tamper(snapshot: WorkflowSnapshot, change: str) -> Any:
    copied: Any = copy.deepcopy(snapshot)
    a = copied["phases"][0]["tasks"][0]
    b = copied["phases"][0]["tasks"][1]
    if change == "unknown key":
        copied["extra"] = 1
    elif change == "wrong type":
        a["attempts"] = "1"
    elif change == "negative attempts":
        a["attempts"] = -1
    elif change == "unknown status":
        a["status"] = "done"
    elif change == "completed without result":
        del a["result"]
        del a["settled"]
    elif change == "failed with success":
        b["result"] = {"success": True, "value": 1}
    elif change == "result on pending":
        copied["phases"][1]["tasks"][0]["status"] = "pending"
    elif change == "settled without result":
        copied["phases"][1]["tasks"][0] = {**a, "status": "skipped", "id": "z"}
        del copied["phases"][1]["tasks"][0]["result"]
    elif change == "settled without attempt":
        a["attempts"] = 0
    elif change == "duplicate task":
        copied["phases"][1]["tasks"][0]["id"] = "a"
    elif change == "duplicate phase":
        copied["phases"][1]["id"] = "one"
    elif change == "phase status":
        copied["phases"][0]["status"] = "completed"
    elif change == "workflow status":
        copied["status"] = "failed"
    elif change == "not a dict":
        return [copied]
    elif change == "nan":
        a["result"]["value"] = float("nan")
    return copied


CHANGES = [
    "unknown key",
    "wrong type",
    "negative attempts",
    "unknown status",
    "completed without result",
    "failed with success",
    "result on pending",
    "settled without result",
    "settled without attempt",
    "duplicate task",
    "duplicate phase",
    "phase status",
    "workflow status",
    "not a dict",
    "nan",
]


@pytest.mark.parametrize("change", CHANGES)
async def test_a_tampered_snapshot_is_refused_with_restore(change: str) -> None:
    snapshot = (await finished()).workflow.snapshot()
    with pytest.raises(WorkflowError) as caught:
        create_restored_workflow(tamper(snapshot, change))
    assert caught.value.code == "RESTORE"
    assert str(caught.value).startswith("malformed workflow snapshot")


SAMPLE: dict[str, Any] = {
    "id": "w",
    "name": "W",
    "status": "completed",
    "bail": False,
    "phases": [
        {
            "id": "p",
            "name": "P",
            "status": "completed",
            "bail": False,
            "tasks": [
                {
                    "id": "t",
                    "name": "T",
                    "status": "completed",
                    "result": {"success": True, "value": 1},
                    "settled": 5,
                    "metadata": {},
                    "attempts": 1,
                }
            ],
        }
    ],
    "created": 1,
    "updated": 5,
}

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.sampled_from(["pending", "running", "completed", "failed", "skipped", "stopped"]),
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(paths(item, (*prefix, index)))
    return found


@given(st.sampled_from(paths(SAMPLE)[1:]), LEAVES, st.booleans())
def test_any_edit_of_a_snapshot_restores_exactly_or_raises_restore(
    path: tuple[Any, ...], leaf: Any, delete: bool
) -> None:
    edited: Any = copy.deepcopy(SAMPLE)
    target = edited
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = leaf
    try:
        restored = create_restored_workflow(edited)
    except WorkflowError as error:
        code = error.code
    else:
        assert restored.snapshot() == edited
        code = "RESTORE"
    assert code == "RESTORE"
