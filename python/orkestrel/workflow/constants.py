"""Bounds and names of the workflow layer."""

from __future__ import annotations

from typing import Final

from orkestrel.timeout import MAX_TIMEOUT_MS

MAX_TIMER_MS: Final = MAX_TIMEOUT_MS
"""Holds the longest per-attempt task timeout and run timeout, `2_147_483_647` milliseconds
(the same bound as `MAX_TIMEOUT_MS`)."""

MAX_TASK_RETRIES: Final = 100
"""Holds the most extra attempts a task may ask for, `100`, so a failing task always ends."""

LIFECYCLE_STATUSES: Final = ("pending", "running", "completed", "failed", "skipped", "stopped")
"""Lists every lifecycle status a task, phase or workflow can have, in lifecycle order."""

TERMINAL_STATUSES: Final = frozenset({"completed", "failed", "skipped", "stopped"})
"""Lists the statuses nothing moves out of during a run."""

WORKFLOW_CHECKPOINTS: Final = ("initial", "attempt", "settlement", "final")
"""Lists the four checkpoints at which a run writes its snapshot to a store, in run order."""

WORKFLOWS_TABLE: Final = "workflows"
"""Names the table a `DatabaseWorkflowStore` built by its factory keeps snapshots in."""
