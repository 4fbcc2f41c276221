"""Pure status derivations: a phase from its tasks, a workflow from its phases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from orkestrel.contract import CLONE_NODE_LIMIT, Contract, ContractError
from orkestrel.workflow.constants import TERMINAL_STATUSES
from orkestrel.workflow.types import LifecycleStatus, PhaseStatus, WorkflowStatus


def derive_phase_status(statuses: Iterable[LifecycleStatus]) -> PhaseStatus:
    """Derives a phase's status from its tasks' statuses, first rule that holds: none or all
    pending is `pending`; any not settled is `running`; any `failed` is `failed`; any `stopped`
    is `stopped`; any `completed` is `completed`; else `skipped`.
    """
    seen = set(statuses)
    if not seen or seen == {"pending"}:
        return "pending"
    if not seen <= TERMINAL_STATUSES:
        return "running"
    for status in ("failed", "stopped", "completed"):
        if status in seen:
            return status
    return "skipped"


def derive_workflow_status(phases: Iterable[tuple[LifecycleStatus, bool]]) -> WorkflowStatus:
    """Derives a workflow's status from `(status, bail)` per phase, first rule that holds: a
    failed phase with bail is `failed`; none or all pending is `pending`; any not settled is
    `running`; any `stopped` is `stopped`; any `completed`, or a failed phase without bail, is
    `completed`; else `skipped`.
    """
    pairs = list(phases)
    if any(status == "failed" and bail for status, bail in pairs):
        return "failed"
    seen = {status for status, _ in pairs}
    if not seen or seen == {"pending"}:
        return "pending"
    if not seen <= TERMINAL_STATUSES:
        return "running"
    if "stopped" in seen:
        return "stopped"
    if "completed" in seen or "failed" in seen:
        return "completed"
    return "skipped"


def clone_reason(error: ContractError) -> str:
    """Why a value could not be copied as JSON, naming the node budget when that was it."""
    text = str(error).split(": ", 1)[-1]
    if "node limit" in text:
        return (
            f"it holds more than {CLONE_NODE_LIMIT} JSON values (the node budget, CLONE_NODE_LIMIT)"
        )
    return text


def faults_of(contract: Contract, value: Any) -> list[Any]:
    """The first ten faults a contract finds in a value, or none when it cannot explain it."""
    try:
        return list(contract.explain(value))[:10]
    except Exception:
        return []
