"""The typed failures of the workspace layer: edit refusals and store refusals."""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

from orkestrel._errors import CodedError

WorkspaceErrorCode = Literal["MODALITY", "PATTERN", "RANGE", "LIMIT"]
"""Names the four ways an edit or search is refused."""

WorkspaceStoreErrorCode = Literal["PATH", "LIMIT", "CONFLICT", "ENCODING"]
"""Names the ways a store refuses to read or write a snapshot."""

WORKSPACE_ERROR_CODES: frozenset[str] = frozenset(get_args(WorkspaceErrorCode))
"""Holds every `WorkspaceErrorCode`, for checking a code read from outside."""

WORKSPACE_STORE_ERROR_CODES: frozenset[str] = frozenset(get_args(WorkspaceStoreErrorCode))
"""Holds every `WorkspaceStoreErrorCode`, for checking a code read from outside."""


class WorkspaceError(CodedError[WorkspaceErrorCode]):
    """Reports a refused edit or search: text work aimed at binary or missing content
    (`MODALITY`), an impossible range (`RANGE`), a pattern the engine will not run or an empty
    query (`PATTERN`), or a result over the workspace's size limit (`LIMIT`).
    """


class WorkspaceStoreError(CodedError[WorkspaceStoreErrorCode]):
    """Reports a store refusing a snapshot: an unsafe path or id (`PATH`), content over the size
    limit (`LIMIT`), a file in the way or changed by someone else (`CONFLICT`), or content that
    cannot be encoded (`ENCODING`).

    A refusal touches nothing.
    """


def is_workspace_error(value: object) -> TypeGuard[WorkspaceError]:
    """Narrows an unknown caught value to a `WorkspaceError` carrying a known code."""
    return isinstance(value, WorkspaceError) and value.code in WORKSPACE_ERROR_CODES


def is_workspace_store_error(value: object) -> TypeGuard[WorkspaceStoreError]:
    """Narrows an unknown caught value to a `WorkspaceStoreError` carrying a known code."""
    return isinstance(value, WorkspaceStoreError) and value.code in WORKSPACE_STORE_ERROR_CODES
