"""The typed failure the workflow runner raises."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

WorkflowErrorCode = Literal["SCHEDULE", "TRANSITION", "RESTORE", "RESUME", "LEASE"]
"""Represents the machine-readable code a raised `WorkflowError` carries."""

WORKFLOW_ERROR_CODES: frozenset[str] = frozenset(get_args(WorkflowErrorCode))
"""Lists every `WorkflowErrorCode`: the codes `is_workflow_error` accepts."""


class WorkflowError(CodedError[WorkflowErrorCode]):
    """Represents a failure of the workflow layer with a machine-readable code and an optional
    context dict.

    `SCHEDULE`: a definition or a run option that cannot be run (malformed, duplicate ids).
    `TRANSITION`: a task names a behavior the run's functions do not register, or a status move
    that the lifecycle forbids. `RESTORE`: a snapshot that is not an exact, consistent
    `WorkflowSnapshot`. `RESUME`: a stored snapshot that cannot be resumed (unreadable, or its
    tree differs from the definition). `LEASE`: another runner holds the lease on the
    workflow id (it is running it now, or died less than its lease's time ago). A task's own
    failure is never raised: it is data in the result.
    """


def is_workflow_error(value: object) -> TypeGuard[WorkflowError]:
    """Narrows an unknown caught value to a `WorkflowError` carrying a known code."""
    return isinstance(value, WorkflowError) and value.code in WORKFLOW_ERROR_CODES
