"""Definitions and stores the workflow tests share."""

from __future__ import annotations

import copy
from typing import Any

from orkestrel.workflow import MemoryWorkflowStore, WorkflowSnapshot, create_workflow_runner


def task(id: str, behavior: str | None = None, **extra: Any) -> dict[str, Any]:
    """A task named after its id."""
    out: dict[str, Any] = {"id": id, "name": id.upper()}
    if behavior is not None:
        out["behavior"] = behavior
    return {**out, **extra}


def phase(id: str, *tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A phase named after its id."""
    return {"id": id, "name": id.upper(), "tasks": list(tasks), **extra}


def workflow(*phases: dict[str, Any], id: str = "wf", **extra: Any) -> dict[str, Any]:
    """A workflow named after its id."""
    return {"id": id, "name": id.upper(), "phases": list(phases), **extra}


def statuses(snapshot: WorkflowSnapshot) -> dict[str, str]:
    """Every task's status in a snapshot, by task id."""
    return {t["id"]: t["status"] for p in snapshot["phases"] for t in p["tasks"]}


async def run(definition: dict[str, Any], **options: Any) -> Any:
    """Runs a definition on a fresh runner with the given `execute` options."""
    return await create_workflow_runner().execute(definition, **options)


class RecordingStore(MemoryWorkflowStore):
    """A memory store that keeps a copy of every snapshot written to it, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[WorkflowSnapshot] = []

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        self.writes.append(copy.deepcopy(snapshot))
        await super().set(snapshot)


class FailingStore(MemoryWorkflowStore):
    """A memory store whose first `failures` writes raise (every write when `None`)."""

    def __init__(self, failures: int | None = None) -> None:
        super().__init__()
        self.failures = failures
        self.attempts = 0

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        self.attempts += 1
        if self.failures is None or self.attempts <= self.failures:
            raise OSError(f"disk full (write {self.attempts})")
        await super().set(snapshot)
