"""The strict shapes of a workflow definition and of its snapshot."""

from __future__ import annotations

from typing import Final

from orkestrel.contract import (
    ContractShape,
    ObjectShape,
    array_shape,
    boolean_shape,
    integer_shape,
    json_shape,
    literal_shape,
    object_shape,
    optional_shape,
    record_shape,
    string_shape,
    union_shape,
)
from orkestrel.workflow.constants import LIFECYCLE_STATUSES, MAX_TASK_RETRIES, MAX_TIMER_MS


def _text(what: str) -> ContractShape:
    return string_shape(min=1, description=what)


def _described(what: str) -> ContractShape:
    return optional_shape(string_shape(description=what))


def task_fields(
    id: ContractShape, name: ContractShape, input: ContractShape | None = None
) -> dict[str, ContractShape]:
    """The fields of a task, with the given `id` and `name` declarations (strict or draft)."""
    return {
        "id": id,
        "name": name,
        "description": _described("What the task does, for people."),
        "behavior": optional_shape(
            _text("The registered function the task runs; omit it for a task that does nothing.")
        ),
        "retries": optional_shape(
            integer_shape(
                min=0, max=MAX_TASK_RETRIES, description="Extra attempts after a failed one."
            )
        ),
        "timeout": optional_shape(
            integer_shape(
                min=0,
                max=MAX_TIMER_MS,
                description="Milliseconds each attempt may take; 0 or omitted for no limit.",
            )
        ),
        "input": optional_shape(
            input
            or record_shape(json_shape(), description="The JSON object the function receives.")
        ),
    }


def phase_fields(
    id: ContractShape, name: ContractShape, task: ContractShape
) -> dict[str, ContractShape]:
    """The fields of a phase, with the given `id`, `name` and task declarations."""
    return {
        "id": id,
        "name": name,
        "description": _described("What the phase does, for people."),
        "tasks": array_shape(task, description="The tasks, run concurrently."),
        "concurrency": optional_shape(
            integer_shape(min=1, description="The most tasks running at once; omit for no cap.")
        ),
        "bail": optional_shape(
            boolean_shape(description="Whether a failed task stops the run (the workflow's).")
        ),
    }


def workflow_fields(
    id: ContractShape, name: ContractShape, phase: ContractShape
) -> dict[str, ContractShape]:
    """The fields of a workflow, with the given `id`, `name` and phase declarations."""
    return {
        "id": id,
        "name": name,
        "description": _described("What the workflow does, for people."),
        "phases": array_shape(phase, description="The phases, run one after another."),
        "bail": optional_shape(
            boolean_shape(description="Whether a failed task stops the run (default false).")
        ),
    }


task_shape: Final[ObjectShape] = object_shape(
    task_fields(_text("The task's id, unique in the workflow."), _text("The task's name."))
)
"""Describes one strict task: `{id, name, description?, behavior?, retries?, timeout?,
input?}`."""

phase_shape: Final[ObjectShape] = object_shape(
    phase_fields(
        _text("The phase's id, unique in the workflow."), _text("The phase's name."), task_shape
    )
)
"""Describes one strict phase: `{id, name, description?, tasks, concurrency?, bail?}`."""

workflow_shape: Final[ObjectShape] = object_shape(
    workflow_fields(_text("The workflow's id."), _text("The workflow's name."), phase_shape)
)
"""Describes one strict workflow definition: `{id, name, description?, phases, bail?}`."""

_status = literal_shape(list(LIFECYCLE_STATUSES))
_count = integer_shape(min=0)
_outcome = union_shape(
    object_shape({"success": literal_shape([True]), "value": json_shape()}),
    object_shape(
        {
            "success": literal_shape([False]),
            "error": object_shape(
                {
                    "origin": literal_shape(["handler", "timeout", "limit"]),
                    "message": string_shape(),
                }
            ),
        }
    ),
)

task_snapshot_shape: Final[ObjectShape] = object_shape(
    {
        **task_fields(string_shape(min=1), string_shape(min=1)),
        "status": _status,
        "result": optional_shape(_outcome),
        "settled": optional_shape(_count),
        "metadata": record_shape(json_shape()),
        "attempts": _count,
    }
)
"""Describes one task of a `WorkflowSnapshot`."""

phase_snapshot_shape: Final[ObjectShape] = object_shape(
    {
        **phase_fields(string_shape(min=1), string_shape(min=1), task_snapshot_shape),
        "status": _status,
        "bail": boolean_shape(),
    }
)
"""Describes one phase of a `WorkflowSnapshot`."""

workflow_snapshot_shape: Final[ObjectShape] = object_shape(
    {
        **workflow_fields(string_shape(min=1), string_shape(min=1), phase_snapshot_shape),
        "status": _status,
        "bail": boolean_shape(),
        "created": _count,
        "updated": _count,
    }
)
"""Describes a whole `WorkflowSnapshot`, checked exactly by `create_restored_workflow`."""
