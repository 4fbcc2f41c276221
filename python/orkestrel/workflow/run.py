"""One run of a built tree: phases in order, tasks concurrently, attempts with deadlines,
bail, run-level stop and the four checkpoints."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread

from orkestrel import _core
from orkestrel._errors import message_of
from orkestrel.abort import AbortController, AbortSignal
from orkestrel.abort.loop import loop_caller
from orkestrel.contract import ContractError, clone_json_value
from orkestrel.telemetry import failed, tool_span
from orkestrel.timeout import create_timeout
from orkestrel.workflow.checkpoints import Checkpoints
from orkestrel.workflow.controller import TaskController
from orkestrel.workflow.results import TaskResult, WorkflowResult
from orkestrel.workflow.types import (
    TaskFailed,
    TaskOutcome,
    WorkflowFault,
    WorkflowProgress,
    WorkflowStoreInterface,
)
from orkestrel.workflow.workflow import (
    PhaseNode,
    TaskNode,
    Workflow,
    mark,
    now,
    phases_of,
    shared_snapshot,
    touch,
)

_UNSET: Any = object()
_TIMED_OUT = "timed out"
_HALTED = "halted"


def is_async(function: Callable[..., Any]) -> bool:
    """Whether calling `function` gives a coroutine (so it runs on the loop, not in a thread)."""
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004
    return call is not None and inspect.iscoroutinefunction(call)


class Behavior:
    """A resolved workflow function and how to call it."""

    __slots__ = ("function", "native")

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.native = is_async(function)

    async def call(self, controller: TaskController) -> Any:
        function = self.function
        if self.native:
            result = function(controller)
        else:
            # Boxed: trio refuses to hand a coroutine back from a worker thread.
            (result,) = await anyio.to_thread.run_sync(
                lambda: (function(controller),), abandon_on_cancel=True
            )
        if inspect.isawaitable(result):
            result = await result
        return result


def _failure(origin: Any, message: str) -> TaskFailed:
    return {"success": False, "error": {"origin": origin, "message": message}}


def _value(outcome: Any) -> Any:
    return outcome["value"]


def _limited(outcome: Any) -> bool:
    return not outcome["success"] and outcome["error"]["origin"] == "limit"


def answer_size(value: Any) -> int:
    """The length of an answer's JSON text, as `json.dumps` writes it."""
    size = _core.json_size(value)
    return len(json.dumps(value)) if size is None else size


Stop = Callable[[str], None]


class _Phase:
    """One phase being run: whether it was halted (by a bail or a run-level stop), whether it
    bailed, and the attempts in flight that a halt must cancel."""

    __slots__ = ("bailed", "halted", "live", "node", "results")

    def __init__(self, node: PhaseNode, results: Callable[[], tuple[TaskResult, ...]]) -> None:
        self.node = node
        self.halted = False
        self.bailed = False
        self.results = results
        self.live: set[Stop] = set()

    def halt(self) -> None:
        """Starts nothing more and cancels every attempt in flight; on the loop's thread."""
        if self.halted:
            return
        self.halted = True
        for stop in list(self.live):
            stop(_HALTED)


def unrun(tree: Workflow, message: str) -> WorkflowResult:
    """The result of a run that could not take its lease because the store failed: nothing
    ran or was written, every task is skipped, and the failure is the fault at `initial`."""
    for phase in phases_of(tree):
        for task in phase.tasks:
            if task.status == "pending" or task.status == "running":
                task.move("skipped")
    mark(tree, stopped=True, finished=True)
    fault: WorkflowFault = {"origin": "persistence", "checkpoint": "initial", "message": message}
    return WorkflowResult(tree, tree.status, tree.results(), False, fault)


class Run:
    """Drives one built tree to its `WorkflowResult`."""

    __slots__ = (
        "_answers",
        "_behaviors",
        "_checkpoints",
        "_current",
        "_done",
        "_fault",
        "_limit",
        "_progress",
        "_settled",
        "_stop",
        "_total",
        "_tree",
    )

    def __init__(
        self,
        tree: Workflow,
        behaviors: dict[str, Behavior],
        store: WorkflowStoreInterface | None,
        limit: int,
        progress: WorkflowProgress | None = None,
    ) -> None:
        self._tree = tree
        self._progress = progress
        tasks = [task for phase in phases_of(tree) for task in phase.tasks]
        self._total = len(tasks)
        self._done = sum(1 for task in tasks if task.outcome is not None)
        self._limit = limit
        self._fault: WorkflowFault | None = None
        self._answers = sum(
            answer_size(_value(task.outcome))
            for phase in phases_of(tree)
            for task in phase.tasks
            if task.outcome is not None and task.outcome["success"]
        )
        self._behaviors = behaviors
        self._stop = AbortController()
        self._current: _Phase | None = None
        self._settled: list[TaskResult] = []
        self._checkpoints = (
            None if store is None else Checkpoints(store, lambda: shared_snapshot(tree))
        )

    async def go(self, signal: AbortSignal | None, timeout: int | None) -> WorkflowResult:
        call = loop_caller()

        def cancel() -> None:
            call(self._halt)

        if signal is not None:
            signal.add_listener(cancel)
            if signal.aborted:
                cancel()
        deadline = None
        if timeout:
            deadline = create_timeout(ms=timeout)
            deadline.signal.add_listener(cancel)
            deadline.start()
        tree = self._tree
        stop = self._stop
        try:
            await self._checkpoint("initial")
            for phase in phases_of(tree):
                if stop.signal.aborted or await self._phase(phase):
                    break
            for phase in phases_of(tree):
                for task in phase.tasks:
                    if task.status == "pending" or task.status == "running":
                        task.move("skipped")
            mark(tree, stopped=stop.signal.aborted, finished=True)
        finally:
            if signal is not None:
                signal.remove_listener(cancel)
            if deadline is not None:
                deadline.clear()
        durable = None if self._checkpoints is None else await self._checkpoint("final")
        fault = self._fault
        if fault is None and self._checkpoints is not None:
            fault = self._checkpoints.fault
        return WorkflowResult(tree, tree.status, tree.results(), durable, fault)

    async def _report(self, node: TaskNode) -> None:
        if self._progress is None:
            return
        self._done += 1
        done, total = self._done, self._total
        message = f"{done} of {total} tasks settled: '{node.id}' {node.status}"
        await self._progress(done, total, message)

    async def _checkpoint(
        self, name: Any, task: str | None = None, attempt: int | None = None
    ) -> bool:
        if self._checkpoints is None:
            return True
        ok = await self._checkpoints.write(name, task, attempt)
        if not ok and name != "final":
            self._halt()
        return ok

    def halt(self) -> None:
        """Stops the run from outside (a lost lease); on the loop's thread."""
        self._halt()

    def _bound(self, node: TaskNode, outcome: TaskOutcome, attempt: int) -> TaskOutcome:
        """The outcome itself while the run's answers stay within the limit, else a `limit`
        failure that stops the run and is its fault."""
        if not outcome["success"]:
            return outcome
        size = answer_size(_value(outcome))
        total = self._answers + size
        if total <= self._limit:
            self._answers = total
            return outcome
        message = (
            f"task '{node.id}' answered {size} bytes of JSON, which would bring the run's "
            f"answers to {total} bytes, over max_answer_bytes ({self._limit} bytes)"
        )
        if self._fault is None:
            self._fault = {
                "origin": "limit",
                "checkpoint": "settlement",
                "message": message,
                "task": node.id,
                "attempt": attempt,
            }
        self._halt()
        return _failure("limit", message)

    def _halt(self) -> None:
        """Stops the run: the phase running now starts nothing more and cancels its attempts."""
        self._stop.abort(_HALTED)
        if self._current is not None:
            self._current.halt()

    async def _phase(self, node: PhaseNode) -> bool:
        """Runs one phase; whether it bailed."""
        node.reached = True
        touch(self._tree)
        phase = _Phase(node, functools.partial(self._earlier, len(self._settled)))
        self._current = phase
        if self._stop.signal.aborted:
            phase.halted = True
        todo = [task for task in node.tasks if task.status != "completed"]
        limit = node.concurrency
        try:
            async with anyio.create_task_group() as group:
                if limit is None or limit >= len(todo):
                    for task in todo:
                        group.start_soon(self._task, phase, task, None)
                else:
                    gate = anyio.Semaphore(limit)
                    for task in todo:
                        try:
                            gate.acquire_nowait()
                        except anyio.WouldBlock:
                            await gate.acquire()
                        if phase.halted:
                            gate.release()
                            break
                        group.start_soon(self._task, phase, task, gate)
        finally:
            self._current = None
        self._settled.extend(task.result for task in node.tasks if task.result is not None)
        return phase.bailed

    def _earlier(self, count: int) -> tuple[TaskResult, ...]:
        return tuple(self._settled[:count])

    async def _task(self, phase: _Phase, node: TaskNode, gate: anyio.Semaphore | None) -> None:
        behavior = node.definition.get("behavior")
        if behavior is None:
            await self._settle(phase, node, gate, None, None)
            return
        # The task's function is the tool it executes: one span for all its attempts.
        attributes = {"orkestrel.workflow.id": self._tree.id, "orkestrel.workflow.task": node.id}
        with tool_span(behavior, f"{self._tree.id}/{node.id}", attributes) as span:
            await self._settle(phase, node, gate, behavior, span)

    async def _settle(
        self,
        phase: _Phase,
        node: TaskNode,
        gate: anyio.Semaphore | None,
        behavior: str | None,
        span: Any,
    ) -> None:
        try:
            function = None if behavior is None else self._behaviors[behavior]
            writes = self._checkpoints is not None
            tree = self._tree
            last = node.retries
            for index in range(last + 1):
                if phase.halted:
                    break
                node.attempts += 1
                attempt = node.attempts
                if node.status == "pending":
                    node.move("running")
                touch(tree)
                if writes and not await self._checkpoint("attempt", node.id, attempt):
                    break
                if phase.halted:
                    break
                if function is None:
                    outcome: TaskOutcome | None = {"success": True, "value": None}
                else:
                    outcome = await self._attempt(phase, node, function, attempt)
                if outcome is None:
                    break
                outcome = self._bound(node, outcome, attempt)
                if outcome["success"] or index == last or _limited(outcome):
                    if outcome["success"] is False:
                        error = outcome["error"]
                        failed(span, str(error["origin"]), error["message"])
                    at = now()
                    node.settle(outcome, at)
                    touch(tree, at)
                    if not outcome["success"] and phase.node.bail and not phase.halted:
                        phase.bailed = True
                        phase.halt()
                    if writes:
                        await self._checkpoint("settlement", node.id, attempt)
                    await self._report(node)
                    return
            if node.status == "pending" or node.status == "running":
                node.move("skipped")
                touch(tree)
        finally:
            if gate is not None:
                gate.release()

    async def _attempt(
        self, phase: _Phase, node: TaskNode, behavior: Behavior, attempt: int
    ) -> TaskOutcome | None:
        """Runs one attempt; its outcome, or `None` when a bail or a stop abandoned it."""
        if phase.halted:
            return None
        controller = AbortController()
        scope = anyio.CancelScope()

        def stop(reason: str) -> None:
            if not controller.signal.aborted:
                controller.abort(reason)
                scope.cancel()

        phase.live.add(stop)
        deadline = None
        value: Any = _UNSET
        error: Exception | None = None
        try:
            if node.timeout:
                deadline = create_timeout(ms=node.timeout)
                deadline.signal.add_listener(lambda: stop(_TIMED_OUT))
                deadline.start()
            handle = TaskController(
                controller.signal,
                attempt,
                node.context,
                clone_json_value(node.metadata) if node.metadata else {},
                phase.results,
            )
            with scope:
                try:
                    if behavior.native:
                        value = await behavior.function(handle)
                        if inspect.isawaitable(value):
                            value = await value
                    else:
                        value = await behavior.call(handle)
                except Exception as exc:
                    error = exc
        finally:
            phase.live.discard(stop)
            if deadline is not None:
                deadline.clear()
        signal = controller.signal
        if signal.aborted:
            if signal.reason == _TIMED_OUT:
                return _failure("timeout", f"task '{node.id}' timed out after {node.timeout} ms")
            return None
        if error is not None:
            return _failure("handler", message_of(error))
        try:
            owned = clone_json_value(value)
        except ContractError:
            return _failure("handler", f"task '{node.id}' returned a non-JSON value")
        return {"success": True, "value": owned}
