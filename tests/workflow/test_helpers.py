"""The pure status derivations, rule by rule."""

from __future__ import annotations

import pytest

from orkestrel.workflow import (
    LIFECYCLE_STATUSES,
    TERMINAL_STATUSES,
    WORKFLOW_CHECKPOINTS,
    WORKFLOW_ERROR_CODES,
    WorkflowError,
    create_workflow_contract,
    derive_phase_status,
    derive_workflow_status,
    is_workflow_error,
    workflow_shape,
)


@pytest.mark.parametrize(
    ("tasks", "status"),
    [
        ([], "pending"),
        (["pending", "pending"], "pending"),
        (["pending", "completed"], "running"),
        (["running", "failed"], "running"),
        (["failed", "completed", "stopped"], "failed"),
        (["stopped", "completed"], "stopped"),
        (["completed", "skipped"], "completed"),
        (["skipped", "skipped"], "skipped"),
    ],
)
def test_phase_status_rules(tasks: list[str], status: str) -> None:
    assert derive_phase_status(tasks) == status  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("phases", "status"),
    [
        ([], "pending"),
        ([("failed", True), ("pending", False)], "failed"),
        ([("pending", False), ("pending", True)], "pending"),
        ([("completed", False), ("pending", False)], "running"),
        ([("stopped", False), ("completed", False)], "stopped"),
        ([("failed", False), ("skipped", False)], "completed"),
        ([("completed", True), ("skipped", False)], "completed"),
        ([("skipped", False)], "skipped"),
    ],
)
def test_workflow_status_rules(phases: list[tuple[str, bool]], status: str) -> None:
    assert derive_workflow_status(phases) == status  # type: ignore[arg-type]


def test_constants_and_the_error_guard() -> None:
    assert LIFECYCLE_STATUSES[0] == "pending"
    assert {"completed", "failed", "skipped", "stopped"} == TERMINAL_STATUSES
    assert WORKFLOW_CHECKPOINTS == ("initial", "attempt", "settlement", "final")
    assert {"SCHEDULE", "TRANSITION", "RESTORE", "RESUME", "LEASE"} == WORKFLOW_ERROR_CODES
    error = WorkflowError("SCHEDULE", "nope", {"a": 1})
    assert (is_workflow_error(error), str(error), error.context) == (True, "nope", {"a": 1})
    assert not is_workflow_error(WorkflowError("OTHER", "x"))  # type: ignore[arg-type]
    assert not is_workflow_error(ValueError("x"))


def test_the_contract_is_compiled_from_the_strict_shape() -> None:
    contract = create_workflow_contract()
    assert contract.schema == create_workflow_contract().schema
    assert contract.shape == workflow_shape
    assert contract.is_valid({"id": "w", "name": "W", "phases": []})
    assert not contract.is_valid({"id": "w", "name": "W", "phases": [], "bail": "true"})
    assert not contract.is_valid({"id": "w", "name": "W", "phases": [], "run": "x"})
