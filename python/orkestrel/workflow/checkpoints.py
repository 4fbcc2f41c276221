"""Serialized checkpoint writes with group commit, and the first fault they met."""

from __future__ import annotations

from collections.abc import Callable

import anyio

from orkestrel._errors import message_of
from orkestrel.workflow.types import (
    WorkflowCheckpoint,
    WorkflowFault,
    WorkflowSnapshot,
    WorkflowStoreInterface,
)


class Checkpoints:
    """Writes a run's snapshot to its store, one write at a time.

    A request that finds a write already in flight waits; the write that next starts takes the
    state at that moment, so it covers every request made before it started and those requests
    share its outcome (group commit). After the first failure only the `final` write is still
    attempted.
    """

    __slots__ = ("_begun", "_lock", "_ok", "_snapshot", "_store", "fault")

    def __init__(
        self, store: WorkflowStoreInterface, snapshot: Callable[[], WorkflowSnapshot]
    ) -> None:
        self._store = store
        self._snapshot = snapshot
        self._lock = anyio.Lock()
        self._begun = 0
        self._ok = True
        self.fault: WorkflowFault | None = None

    async def write(
        self, checkpoint: WorkflowCheckpoint, task: str | None = None, attempt: int | None = None
    ) -> bool:
        """Persists the current state for `checkpoint`; whether the write that covered it
        succeeded."""
        final = checkpoint == "final"
        if self.fault is not None and not final:
            return False
        ticket = self._begun
        async with self._lock:
            if not final:
                if self.fault is not None:
                    return False
                if self._begun > ticket:
                    return self._ok
            self._begun += 1
            try:
                await self._store.set(self._snapshot())
            except Exception as error:
                self._ok = False
                if self.fault is None:
                    fault: WorkflowFault = {
                        "origin": "persistence",
                        "checkpoint": checkpoint,
                        "message": message_of(error),
                    }
                    if task is not None:
                        fault["task"] = task
                    if attempt is not None:
                        fault["attempt"] = attempt
                    self.fault = fault
                return False
            self._ok = True
            return True
