"""What a served workflow run tells its caller's log when it ends."""

from __future__ import annotations

import contextlib

import anyio

from orkestrel.tool import ToolContext
from orkestrel.workflow import WorkflowResult

MAX_LOGGED_ERROR = 300
"""The most characters of a failed task's error a log entry carries."""


async def log_workflow(caller: ToolContext, result: WorkflowResult) -> None:
    """Logs each failed task at `warning` (its id and error, bounded) and the run's end at
    `info` (its status and counts); a caller that is gone does not fail the run."""
    failed: list[tuple[str, str]] = []
    for item in result.results:
        outcome = item.result
        if outcome["success"] is False:
            failed.append((item.task.id, outcome["error"]["message"]))
    identity = result.workflow.id
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        for task, error in failed:
            if len(error) > MAX_LOGGED_ERROR:
                error = error[:MAX_LOGGED_ERROR] + "…"
            await caller.warning(f"workflow '{identity}' task '{task}' failed: {error}")
        await caller.info(
            f"workflow '{identity}' ended {result.status}: "
            f"{len(result.results)} tasks settled, {len(failed)} failed"
        )
