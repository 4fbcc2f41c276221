"""Total guards for file values and snapshots that arrive from outside the process."""

from __future__ import annotations

import base64
import binascii
from typing import TypeGuard, get_args

from orkestrel.workspace.helpers import compute_size, count_lines
from orkestrel.workspace.types import (
    BinaryContent,
    BinaryMIME,
    File,
    FileState,
    TextContent,
    WorkspaceSnapshot,
)

_MIMES = frozenset(get_args(BinaryMIME))
_STATES = frozenset(get_args(FileState))


def is_base64(value: str) -> bool:
    """Determines whether text is valid, padded base64."""
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _is_content(value: object) -> bool:
    if isinstance(value, TextContent):
        return isinstance(value.text, str) and isinstance(value.language, str)
    if isinstance(value, BinaryContent):
        return isinstance(value.data, str) and value.mime in _MIMES and is_base64(value.data)
    return False


def is_file(value: object) -> TypeGuard[File]:
    """Determines whether a value is a well-formed file: typed fields, a known state, and the
    size and line count its content implies. Never raises.
    """
    try:
        return (
            isinstance(value, File)
            and isinstance(value.path, str)
            and value.state in _STATES
            and _is_content(value.content)
            and value.size == compute_size(value.content)
            and value.lines == count_lines(value.content)
        )
    except Exception:
        return False


def is_workspace_snapshot(value: object) -> TypeGuard[WorkspaceSnapshot]:
    """Determines whether a value is a well-formed snapshot: a string id and a tuple of
    well-formed files. Never raises.
    """
    return (
        isinstance(value, WorkspaceSnapshot)
        and isinstance(value.id, str)
        and isinstance(value.files, tuple)
        and all(is_file(file) for file in value.files)
    )
