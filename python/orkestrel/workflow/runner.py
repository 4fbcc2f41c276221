"""`WorkflowRunner`: checks a definition and its run options, resolves every behavior, resumes
from a stored snapshot when asked, and runs the tree."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel._errors import raise_alone
from orkestrel.abort import AbortSignal, is_abort_signal
from orkestrel.contract import ContractError, clone_json_record, clone_json_value, create_contract
from orkestrel.timeout import is_timeout_duration
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.helpers import faults_of
from orkestrel.workflow.results import WorkflowResult
from orkestrel.workflow.run import Behavior, Run
from orkestrel.workflow.shapes import workflow_shape
from orkestrel.workflow.snapshot import create_restored_workflow
from orkestrel.workflow.types import WorkflowFunctions, WorkflowStoreInterface
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
        raise _schedule("malformed workflow definition", {"reason": str(error)}) from None
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


class WorkflowRunner:
    """Implements `WorkflowRunnerInterface`: runs a definition's phases in order and each
    phase's tasks concurrently, with retries, deadlines, bail, run-level cancel and, with a
    store, the four checkpoint writes.

    The runner holds no state: one runner serves any number of runs at once.
    """

    __slots__ = ()

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
    ) -> WorkflowResult:
        """Runs `definition` to its `WorkflowResult`; a task's failure is data in the result,
        never raised.

        Before any task runs or any checkpoint is written, it raises `SCHEDULE` for a malformed
        definition or option and `TRANSITION` for a behavior `functions` does not register.
        `signal` aborting or `timeout` (milliseconds) expiring stops the run. `inputs` maps task
        ids to the JSON input their functions receive. `resume=True` continues the run whose
        snapshot `store` holds: completed tasks keep their outcome and do not run again.
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
        if resume:
            assert store is not None
            try:
                stored = await store.get(tree.id)
            except WorkflowError:
                raise
            except Exception as error:
                raise WorkflowError(
                    "RESUME",
                    f"cannot read the stored snapshot of workflow '{tree.id}': {error}",
                    {"workflow": tree.id},
                ) from error
            if stored is not None:
                _resume(tree, stored)
        try:
            return await Run(tree, behaviors, store).go(signal, timeout)
        except BaseExceptionGroup as group:
            raise_alone(group)

    def __repr__(self) -> str:
        return "WorkflowRunner()"
