"""The lenient authoring shapes of the workflow tool: drafts with optional ids and names, and
the flat step list it advertises."""

from __future__ import annotations

from typing import Final

from orkestrel.contract import (
    ContractShape,
    ObjectShape,
    array_shape,
    integer_shape,
    json_shape,
    literal_shape,
    object_shape,
    optional_shape,
    record_shape,
    string_shape,
)
from orkestrel.toolbox.workflow.constants import MAX_RUN_PAGE, MAX_WORKFLOW_TASKS
from orkestrel.workflow.shapes import phase_fields, task_fields, workflow_fields


def _optional(what: str) -> ContractShape:
    return optional_shape(string_shape(min=1, description=what))


def _bail(what: str) -> ContractShape:
    # A literal, not a boolean: a draft's parse must not read the string "true" as true.
    return optional_shape(literal_shape([True, False], description=what))


task_draft_shape: Final[ObjectShape] = object_shape(
    task_fields(
        _optional("The task's id; omitted, it is <phase id>-task-<index>."),
        _optional("The task's name; omitted, it is the id."),
    )
)
"""Describes one draft task: a strict task whose `id` and `name` may be omitted."""

phase_draft_shape: Final[ObjectShape] = object_shape(
    {
        **phase_fields(
            _optional("The phase's id; omitted, it is phase-<index>."),
            _optional("The phase's name; omitted, it is the id."),
            task_draft_shape,
        ),
        "bail": _bail("Whether a failed task stops the run (the workflow's when omitted)."),
    }
)
"""Describes one draft phase: a strict phase whose `id` and `name` may be omitted and whose
tasks are draft tasks."""

workflow_draft_shape: Final[ObjectShape] = object_shape(
    {
        **workflow_fields(
            _optional("The workflow's id; omitted, it is wf."),
            _optional("The workflow's name; omitted, it is the id."),
            phase_draft_shape,
        ),
        "bail": _bail("Whether a failed task stops the run (default false)."),
    }
)
"""Describes a draft workflow: `id` and `name` may be omitted at the workflow, phase and task
levels, so a small model can leave out every identity string."""

step_shape: Final[ObjectShape] = object_shape(
    {
        "name": string_shape(min=1, description="The registered behavior this step runs."),
        "input": optional_shape(
            record_shape(json_shape(), description="The JSON object the behavior receives.")
        ),
    }
)
"""Describes one flat step, `{name, input?}`: the behavior it runs and what it is given."""

workflow_steps_shape: Final[ObjectShape] = object_shape(
    {
        "name": optional_shape(string_shape(min=1)),
        "bail": _bail("Stop at a failed step."),
        "steps": array_shape(step_shape, max=MAX_WORKFLOW_TASKS),
    }
)
"""Describes the flat authoring shape the workflow tool advertises as its parameters,
`{name?, bail?, steps}`."""

_RUN: Final = string_shape(min=1, description="Read a stored run.")
_OFFSET: Final = integer_shape(min=0, description="With run.")
_LIMIT: Final = integer_shape(min=1, max=MAX_RUN_PAGE, description="With run.")

run_read_shape: Final[ObjectShape] = object_shape(
    {"run": _RUN, "offset": optional_shape(_OFFSET), "limit": optional_shape(_LIMIT)}
)
"""Describes the read form, `{run, offset?, limit?}`: a page of a stored run's tasks."""

workflow_call_shape: Final[ObjectShape] = object_shape(
    {
        **workflow_steps_shape["properties"],
        "steps": optional_shape(workflow_steps_shape["properties"]["steps"]),
        "run": optional_shape(_RUN),
        "offset": optional_shape(_OFFSET),
        "limit": optional_shape(_LIMIT),
    }
)
"""Describes what the workflow tool advertises: the flat form `{name?, bail?, steps}` or the
read form `{run, offset?, limit?}`, as one object (a strict client needs one)."""
