"""Bounds and names of the workflow layer."""

from __future__ import annotations

from typing import Final

from orkestrel.timeout import MAX_TIMEOUT_MS

MAX_TIMER_MS: Final = MAX_TIMEOUT_MS
"""Holds the longest per-attempt task timeout and run timeout, `2_147_483_647` milliseconds
(the same bound as `MAX_TIMEOUT_MS`)."""

MAX_TASK_RETRIES: Final = 100
"""Holds the most extra attempts a task may ask for, `100`, so a failing task always ends."""

MAX_ANSWER_BYTES: Final = 32 * 1024 * 1024
"""Holds the default of `max_answer_bytes`, `33_554_432` (32 MiB): the most bytes of JSON the
answers of one run's tasks may add up to; the answer that would pass it fails its task with
origin `limit` and stops the run."""

LEASE_TTL_MS: Final = 30_000
"""Holds the default of `lease_ttl`, `30_000` milliseconds: how long a run's lease on its
workflow id lasts without renewal, so that a runner that died gives the id up by then."""

LIFECYCLE_STATUSES: Final = ("pending", "running", "completed", "failed", "skipped", "stopped")
"""Lists every lifecycle status a task, phase or workflow can have, in lifecycle order."""

TERMINAL_STATUSES: Final = frozenset({"completed", "failed", "skipped", "stopped"})
"""Lists the statuses nothing moves out of during a run."""

WORKFLOW_CHECKPOINTS: Final = ("initial", "attempt", "settlement", "final")
"""Lists the four checkpoints at which a run writes its snapshot to a store, in run order."""

WORKFLOWS_TABLE: Final = "workflow_entries"
"""Names the table a `DatabaseWorkflowStore` keeps its entries in, unless told another."""
