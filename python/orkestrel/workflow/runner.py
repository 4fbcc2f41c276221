"""`WorkflowRunner`: checks a definition and its run options, resolves every behavior, resumes
from a stored snapshot when asked, and runs the tree."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Mapping
from typing import Any

import anyio

from orkestrel._errors import message_of, raise_alone
from orkestrel.abort import AbortSignal, is_abort_signal
from orkestrel.contract import ContractError, clone_json_record, clone_json_value, create_contract
from orkestrel.timeout import is_timeout_duration
from orkestrel.workflow.constants import LEASE_TTL_MS, MAX_ANSWER_BYTES, MAX_TIMER_MS
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.helpers import clone_reason, faults_of
from orkestrel.workflow.results import WorkflowResult
from orkestrel.workflow.run import Behavior, Run, unrun
from orkestrel.workflow.shapes import workflow_shape
from orkestrel.workflow.snapshot import create_restored_workflow
from orkestrel.workflow.types import (
    WorkflowFunctions,
    WorkflowLeaseInterface,
    WorkflowProgress,
    WorkflowStoreInterface,
)
from orkestrel.workflow.workflow import Workflow, build_tree, now, phases_of, place, signature

_CONTRACT = create_contract(workflow_shape)


def _schedule(message: str, context: dict[str, Any] | None = None) -> WorkflowError:
    return WorkflowError("SCHEDULE", message, context)


def own_definition(definition: Any) -> dict[str, Any]:
    """A fresh copy of a definition that passes the strict contract and has unique phase and
    task ids, or `SCHEDULE`."""
    if not _CONTRACT.is_valid(definition):
        faults = faults_of(_CONTRACT, definition)
        raise _schedule("malformed workflow definition", {"faults": faults})
    try:
        owned: dict[str, Any] = clone_json_value(definition)
    except ContractError as error:
        reason = clone_reason(error)
        raise _schedule(f"malformed workflow definition: {reason}", {"reason": reason}) from None
    phases: set[str] = set()
    tasks: set[str] = set()
    for phase in owned["phases"]:
        if phase["id"] in phases:
            raise _schedule(f"phase id '{phase['id']}' appears twice", {"phase": phase["id"]})
        phases.add(phase["id"])
        for task in phase["tasks"]:
            if task["id"] in tasks:
                raise _schedule(f"task id '{task['id']}' appears twice", {"task": task["id"]})
            tasks.add(task["id"])
    return owned


def _resolve(
    definition: dict[str, Any], functions: WorkflowFunctions | None
) -> dict[str, Behavior]:
    behaviors: dict[str, Behavior] = {}
    for phase in definition["phases"]:
        for task in phase["tasks"]:
            name = task.get("behavior")
            if name is None or name in behaviors:
                continue
            # Mapping lookup only: a registry never resolves attributes or inherited names.
            if functions is None or name not in functions:
                raise WorkflowError(
                    "TRANSITION",
                    f"task '{task['id']}' behavior '{name}' is not registered",
                    {"task": task["id"], "behavior": name},
                )
            function = functions[name]
            if not callable(function):
                raise WorkflowError(
                    "TRANSITION",
                    f"task '{task['id']}' behavior '{name}' is not callable",
                    {"task": task["id"], "behavior": name},
                )
            behaviors[name] = Behavior(function)
    return behaviors


def _inputs(
    definition: dict[str, Any], inputs: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    if inputs is None:
        return {}
    if not isinstance(inputs, Mapping):
        raise _schedule("inputs must map task ids to JSON objects")
    known = {task["id"] for phase in definition["phases"] for task in phase["tasks"]}
    owned: dict[str, dict[str, Any]] = {}
    for key, value in inputs.items():
        if key not in known:
            raise _schedule(f"inputs name task {key!r}, which the workflow does not have")
        try:
            owned[key] = clone_json_record(value)
        except ContractError:
            raise _schedule(f"the input of task '{key}' is not a JSON object") from None
    return owned


def _check_options(functions: Any, store: Any, signal: Any, timeout: Any, resume: Any) -> None:
    if functions is not None and not isinstance(functions, Mapping):
        raise _schedule("functions must be a mapping of behavior name to function")
    if signal is not None and not is_abort_signal(signal):
        raise _schedule("signal must be an AbortSignal")
    if timeout is not None and not is_timeout_duration(timeout):
        raise _schedule("timeout must be a whole number of milliseconds from 0 to 2147483647")
    if not isinstance(resume, bool):
        raise _schedule("resume must be a bool")
    if resume and store is None:
        raise _schedule("resume needs the store the interrupted run wrote to")


async def _read(tree: Workflow, store: WorkflowStoreInterface) -> None:
    try:
        stored = await store.get(tree.id)
    except WorkflowError:
        raise
    except Exception as error:
        raise WorkflowError(
            "RESUME",
            f"cannot read the stored snapshot of workflow '{tree.id}': {message_of(error)}",
            {"workflow": tree.id},
        ) from error
    if stored is not None:
        _resume(tree, stored)


def _resume(tree: Workflow, stored: Any) -> None:
    restored = create_restored_workflow(stored)
    if signature(restored) != signature(tree):
        raise WorkflowError(
            "RESUME",
            f"the stored snapshot of workflow '{tree.id}' has a different tree",
            {"workflow": tree.id},
        )
    for phase, old_phase in zip(phases_of(tree), phases_of(restored), strict=True):
        for task, old in zip(phase.tasks, old_phase.tasks, strict=True):
            task.attempts = old.attempts
            if old.status == "completed" and old.outcome is not None and old.settled is not None:
                task.status = "running"
                task.metadata = old.metadata
                task.settle(old.outcome, old.settled)
    place(tree, restored.created, now())


def _positive(name: str, value: Any, top: int) -> int:
    if type(value) is not int or not 1 <= value <= top:
        raise _schedule(f"{name} must be a whole number from 1 to {top}, not {value!r}")
    return value


async def _take(store: WorkflowLeaseInterface, id: str, owner: str, ttl: int) -> str | None:
    """Takes the lease; `LEASE` when another runner holds it, else the store's failure."""
    try:
        await store.acquire(id, owner, ttl)
    except WorkflowError as error:
        if error.code == "LEASE":
            raise
        return message_of(error)
    except Exception as error:
        return message_of(error)
    return None


async def _renew(store: WorkflowLeaseInterface, id: str, owner: str, ttl: int, run: Run) -> None:
    """Renews the run's lease every third of its time; a lease it cannot renew stops the run
    (its next write then fails on the lease, which is the run's fault)."""
    while True:
        await anyio.sleep(ttl / 3000)
        try:
            await store.acquire(id, owner, ttl)
        except Exception:
            run.halt()
            return


class WorkflowRunner:
    """Implements `WorkflowRunnerInterface`: runs a definition's phases in order and each
    phase's tasks concurrently, with retries, deadlines, bail, run-level cancel and, with a
    store, the four checkpoint writes.

    `max_answer_bytes` bounds the JSON the answers of one run's tasks add up to; `lease_ttl`
    (milliseconds) is how long a run's lease on its workflow id lasts unrenewed, with a store
    that leases (`WorkflowLeaseInterface`). The runner holds no other state: one runner serves
    any number of runs at once.
    """

    __slots__ = ("_lease_ttl", "_max_answer_bytes")

    def __init__(
        self, *, max_answer_bytes: int = MAX_ANSWER_BYTES, lease_ttl: int = LEASE_TTL_MS
    ) -> None:
        self._max_answer_bytes = _positive("max_answer_bytes", max_answer_bytes, 1 << 62)
        self._lease_ttl = _positive("lease_ttl", lease_ttl, MAX_TIMER_MS)

    async def execute(
        self,
        definition: Mapping[str, Any],
        *,
        functions: WorkflowFunctions | None = None,
        store: WorkflowStoreInterface | None = None,
        signal: AbortSignal | None = None,
        timeout: int | None = None,
        inputs: Mapping[str, Mapping[str, Any]] | None = None,
        resume: bool = False,
        progress: WorkflowProgress | None = None,
    ) -> WorkflowResult:
        """Runs `definition` to its `WorkflowResult`; a task's failure is data in the result,
        never raised.

        Before any task runs or any checkpoint is written, it raises `SCHEDULE` for a malformed
        definition or option and `TRANSITION` for a behavior `functions` does not register.
        `signal` aborting or `timeout` (milliseconds) expiring stops the run. `inputs` maps task
        ids to the JSON input their functions receive. `resume=True` continues the run whose
        snapshot `store` holds: completed tasks keep their outcome and do not run again.
        `progress` is awaited after each task settles with the settled count, the task
        count and a one-line message naming the task and its status.
        """
        _check_options(functions, store, signal, timeout, resume)
        owned = own_definition(definition)
        behaviors = _resolve(owned, functions)
        given = _inputs(owned, inputs)
        tree = build_tree(owned, now())
        for phase in phases_of(tree):
            for task in phase.tasks:
                source = given.get(task.id)
                if source is None:
                    source = task.definition.get("input")
                    source = {} if source is None else clone_json_value(source)
                task.metadata = source
        leased = store if isinstance(store, WorkflowLeaseInterface) else None
        owner = uuid.uuid4().hex
        ttl = self._lease_ttl
        if leased is not None:
            failure = await _take(leased, tree.id, owner, ttl)
            if failure is not None:
                return unrun(tree, failure)
        try:
            if resume:
                assert store is not None
                await _read(tree, store)
            run = Run(tree, behaviors, store, self._max_answer_bytes, progress)
            if leased is None:
                return await run.go(signal, timeout)
            result = None
            async with anyio.create_task_group() as group:
                group.start_soon(_renew, leased, tree.id, owner, ttl, run)
                result = await run.go(signal, timeout)
                group.cancel_scope.cancel()
            assert result is not None
            return result
        except BaseExceptionGroup as group:
            raise_alone(group)
        finally:
            if leased is not None:
                # An unreleased lease expires by itself.
                with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await leased.release(tree.id, owner)

    def __repr__(self) -> str:
        return (
            f"WorkflowRunner(max_answer_bytes={self._max_answer_bytes}, "
            f"lease_ttl={self._lease_ttl})"
        )
