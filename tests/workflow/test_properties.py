"""A law: for random trees of no-op, succeeding, failing and flaky tasks, every status the
runner derives matches a small reference model of the status rules."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.workflow import TaskControllerInterface, create_workflow_runner

TERMINAL = {"completed", "failed", "skipped", "stopped"}


def model_phase(statuses: list[str], reached: bool) -> str:
    if not statuses:
        return "completed" if reached else "pending"
    if set(statuses) == {"pending"}:
        return "pending"
    if any(status not in TERMINAL for status in statuses):
        return "running"
    for status in ("failed", "stopped", "completed"):
        if status in statuses:
            return status
    return "skipped"


def model_workflow(phases: list[tuple[str, bool]]) -> str:
    if any(status == "failed" and bail for status, bail in phases):
        return "failed"
    if not phases:
        return "completed"
    if any(status not in TERMINAL for status, _ in phases):
        return "running"
    if any(status == "stopped" for status, _ in phases):
        return "stopped"
    if any(status in ("completed", "failed") for status, _ in phases):
        return "completed"
    return "skipped"


def natural(kind: tuple[str, int], retries: int) -> str:
    name, failures = kind
    if name == "fail" or (name == "flaky" and failures > retries):
        return "failed"
    return "completed"


TASK = st.tuples(
    st.sampled_from(["noop", "ok", "fail", "flaky"]), st.integers(0, 2), st.integers(0, 2)
)
PHASE = st.tuples(
    st.lists(TASK, max_size=4),
    st.sampled_from([None, True, False]),
    st.sampled_from([None, 1, 2]),
)
TREE = st.tuples(st.lists(PHASE, max_size=4), st.sampled_from([None, True, False]))


def build(tree: Any) -> dict[str, Any]:
    phases, bail = tree
    definition: dict[str, Any] = {"id": "law", "name": "Law", "phases": []}
    if bail is not None:
        definition["bail"] = bail
    for p, (tasks, phase_bail, concurrency) in enumerate(phases):
        phase: dict[str, Any] = {"id": f"p{p}", "name": f"p{p}", "tasks": []}
        if phase_bail is not None:
            phase["bail"] = phase_bail
        if concurrency is not None:
            phase["concurrency"] = concurrency
        for t, (kind, failures, retries) in enumerate(tasks):
            task: dict[str, Any] = {"id": f"p{p}t{t}", "name": "t", "retries": retries}
            if kind != "noop":
                task["behavior"] = kind
                task["input"] = {"failures": failures}
            phase["tasks"].append(task)
        definition["phases"].append(phase)
    return definition


async def ok(controller: TaskControllerInterface) -> int:
    await anyio.lowlevel.checkpoint()
    return controller.attempt


async def fail(controller: TaskControllerInterface) -> None:
    await anyio.lowlevel.checkpoint()
    raise RuntimeError("fail")


async def flaky(controller: TaskControllerInterface) -> int:
    if controller.attempt <= controller.input["failures"]:
        raise RuntimeError("not yet")
    return controller.attempt


@given(TREE, st.sampled_from(["asyncio", "trio"]))
def test_runner_statuses_match_the_reference_model(tree: Any, backend: str) -> None:
    definition = build(tree)
    functions = {"ok": ok, "fail": fail, "flaky": flaky}

    async def go() -> Any:
        return await create_workflow_runner().execute(definition, functions=functions)

    result = anyio.run(go, backend=backend)
    snapshot = result.workflow.snapshot()
    phases, workflow_bail = tree
    stopped = False
    derived: list[tuple[str, bool]] = []
    for (tasks, phase_bail, concurrency), phase in zip(phases, snapshot["phases"], strict=True):
        bail = bool(workflow_bail) if phase_bail is None else phase_bail
        actual = [entry["status"] for entry in phase["tasks"]]
        expected = [natural((kind, failures), retries) for kind, failures, retries in tasks]
        reached = not stopped
        if stopped:
            assert actual == ["skipped"] * len(tasks)
        elif bail and "failed" in expected:
            assert "failed" in actual
            for want, got in zip(expected, actual, strict=True):
                assert got in (want, "skipped")
            if concurrency == 1:
                first = expected.index("failed")
                assert actual == expected[:first] + ["failed"] + ["skipped"] * (
                    len(tasks) - first - 1
                )
            stopped = True
        else:
            assert actual == expected
        assert phase["status"] == model_phase(actual, reached)
        assert phase["bail"] == bail
        derived.append((phase["status"], bail))
    assert snapshot["status"] == result.status == model_workflow(derived)
    settled = [
        e["id"]
        for p in snapshot["phases"]
        for e in p["tasks"]
        if e["status"] in ("completed", "failed")
    ]
    assert [item.task.id for item in result.results] == settled
