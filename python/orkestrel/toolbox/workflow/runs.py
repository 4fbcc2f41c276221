"""Reading a stored run through the workflow tool: a page of its tasks' outcomes."""

from __future__ import annotations

from orkestrel.toolbox.workflow.constants import MAX_RUN_PAGE
from orkestrel.toolbox.workflow.helpers import cut_message
from orkestrel.toolbox.workflow.types import WorkflowRunPage, WorkflowRunTask
from orkestrel.workflow import WorkflowSnapshot


def read_run(
    snapshot: WorkflowSnapshot, offset: int = 0, limit: int = MAX_RUN_PAGE
) -> WorkflowRunPage:
    """`{run, status, total, offset, tasks, more?}`: the run's stored status and the tasks from
    `offset`, at most `limit`, each `{task, phase, status, value?, error?}` with the error's
    message cut; `more` counts the tasks after the page."""
    every = [(phase["id"], task) for phase in snapshot["phases"] for task in phase["tasks"]]
    tasks: list[WorkflowRunTask] = []
    for phase, task in every[offset : offset + limit]:
        entry: WorkflowRunTask = {"task": task["id"], "phase": phase, "status": task["status"]}
        outcome = task.get("result")
        if outcome is not None and outcome["success"] is True:
            entry["value"] = outcome.get("value")
        elif outcome is not None and outcome["success"] is False:
            error = outcome["error"]
            entry["error"] = {"origin": error["origin"], "message": cut_message(error["message"])}
        tasks.append(entry)
    answer: WorkflowRunPage = {
        "run": snapshot["id"],
        "status": snapshot["status"],
        "total": len(every),
        "offset": offset,
        "tasks": tasks,
    }
    more = len(every) - offset - len(tasks)
    if more > 0:
        answer["more"] = more
    return answer
