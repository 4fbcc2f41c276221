"""The per-attempt handle a workflow function is called with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orkestrel.abort import AbortSignal
from orkestrel.workflow.results import TaskContext, TaskResult


class TaskController:
    """Implements `TaskControllerInterface` for one attempt of one task: the attempt's `signal`
    aborts on its deadline, a run-level cancel or a bail, and `input` is the attempt's own copy
    of the task's input.

    `results` is called when the function asks for the earlier phases' results, so a run with
    many phases builds them only for the functions that read them.
    """

    __slots__ = ("_attempt", "_input", "_results", "_signal", "_task")

    def __init__(
        self,
        signal: AbortSignal,
        attempt: int,
        task: TaskContext,
        input: dict[str, Any],
        results: Callable[[], tuple[TaskResult, ...]],
    ) -> None:
        self._signal = signal
        self._attempt = attempt
        self._task = task
        self._input = input
        self._results = results

    @property
    def signal(self) -> AbortSignal:
        """The attempt's abort signal: listen to it, `await signal.wait()` or run work inside
        `with signal.scope():`."""
        return self._signal

    @property
    def aborted(self) -> bool:
        """Whether the attempt has been asked to stop."""
        return self._signal.aborted

    @property
    def attempt(self) -> int:
        """The attempt's number, from 1."""
        return self._attempt

    @property
    def task(self) -> TaskContext:
        """The task being run, with its phase and workflow as `task.phase.workflow`."""
        return self._task

    @property
    def input(self) -> dict[str, Any]:
        """The task's JSON input: the run's `inputs[task id]`, else the task's `input`, else
        `{}`; each attempt gets its own copy."""
        return self._input

    def results(self) -> tuple[TaskResult, ...]:
        """Lists the results of the phases that finished before this task's phase began."""
        return self._results()

    def __repr__(self) -> str:
        return f"<TaskController task={self._task.id!r} attempt={self._attempt}>"
