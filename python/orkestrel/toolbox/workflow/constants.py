"""The name, bounds, examples and teaching texts of the workflow tool."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from orkestrel.toolbox.readonly import read_only

WORKFLOW_TOOL_NAME: Final = "workflow"
"""Holds the name `create_workflow_tool` advertises, `'workflow'`: the key a model calls, and
the name the agent adapter binds its nested workflow tool under."""

MAX_WORKFLOW_CHAIN: Final = 8
"""Holds the deepest a workflow → agent → workflow chain may nest, `8`: the root plus eight
nested workflows run, a ninth is refused with `DEPTH`."""

MAX_WORKFLOW_TASKS: Final = 1000
"""Holds the most tasks (or steps) one authored workflow may hold, `1000`, so a call cannot make
the tool run or checkpoint an unbounded tree."""

MAX_WORKFLOW_FAILURES: Final = 10
"""Holds the most failed tasks a run's answer names, `10`; `more` counts the rest."""

MAX_FAILURE_MESSAGE: Final = 500
"""Holds the longest failure message a run's answer carries, `500` characters; a longer one is
cut and ends with `…`."""

MAX_RUN_PAGE: Final = 50
"""Holds the most tasks one read of a stored run lists, `50`, its default `limit`; `more`
counts the tasks after the page."""

WORKFLOW_TOOL_FLAT_EXAMPLE: Final[dict[str, Any]] = read_only(
    {"name": "release", "steps": [{"name": "compile"}, {"name": "publish"}]}
)
"""Holds a complete flat authoring example, `{name, steps: [{name}]}`: the way a small model
authors a workflow through `create_workflow_tool`."""

WORKFLOW_TOOL_NESTED_EXAMPLE: Final[dict[str, Any]] = read_only(
    {
        "id": "release",
        "name": "Release",
        "phases": [
            {
                "id": "build",
                "name": "Build",
                "tasks": [{"id": "compile", "name": "Compile", "behavior": "compile"}],
            }
        ],
    }
)
"""Holds a minimal nested authoring example: a full `WorkflowDefinition`, the escape hatch a
model can use instead of the flat form."""

WORKFLOW_TOOL_SUMMARY: Final = "Run a multi-step workflow. See describe('workflow')."
"""Holds the one-sentence summary the workflow tool advertises in place of its description,
pointing at `describe('workflow')`."""


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, separators=(",", ":"))


WORKFLOW_TOOL_DESCRIPTION: Final = f"""Author a workflow and run it in one call.

Flat form: {{name?, bail?, steps: [{{name, input?}}]}}. Steps run one after another; each \
step's name is a registered behavior, and input is the JSON object that behavior receives. name, \
when given, is the workflow's id: running the same name again replaces its stored run. bail: \
true stops the run at the first failed step.
Example: {_json(WORKFLOW_TOOL_FLAT_EXAMPLE)}

Nested form, for more control: {{id?, name?, bail?, phases: [{{id?, name?, concurrency?, \
bail?, tasks: [{{id?, name?, behavior?, input?, retries?, timeout?}}]}}]}}. Phases run in order; \
the tasks of a phase run at the same time, at most concurrency at once. retries is how many \
extra attempts a failed task gets; timeout is each attempt's limit in milliseconds; bail: true \
stops the run at the first failed task. A task without behavior does nothing. Ids and names \
may be left out; they are filled in by position. A workflow holds at most \
{MAX_WORKFLOW_TASKS} tasks.
Example: {_json(WORKFLOW_TOOL_NESTED_EXAMPLE)}

The answer is {{status, count}}: status is the run's lifecycle, completed (every phase ran; \
tasks may still have failed), failed (a failed task stopped the run, bail) or stopped (the run \
was stopped, as when its call is cancelled: the tasks in flight stop, the rest are skipped, and \
the stored run reads stopped); count is \
how many tasks ran to an outcome. When a task failed, the answer also has failed (how many) and \
failures, the first {MAX_WORKFLOW_FAILURES} as {{task, origin, message}}, and more counts the \
rest. With a store it also has durable (whether the run was saved) and, when a save \
failed, fault.

Read form, with a store: {{run, offset?, limit?}} reads the stored run whose id is run (a flat \
run's name) instead of running anything. The answer is {{run, status, total, offset, tasks, \
more?}}: status is the stored lifecycle (running while it runs); tasks lists at most limit \
(default and most {MAX_RUN_PAGE}) of its total tasks from offset, each {{task, phase, status, \
value?, error?}}, the error as {{origin, message}} with message cut at {MAX_FAILURE_MESSAGE} \
characters; more counts the tasks after the page, read on with offset + limit."""
"""Holds the full teaching text of the workflow tool: the flat form and its example, the nested
form and its example, and the answer."""
