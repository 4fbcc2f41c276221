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
    size and line count its content implies.

    Never raises.
    """
    try:
        return (
            isinstance(value, File)
            and isinstance(value.path, str)
            and value.state in _STATES
            and type(value.size) is int
            and type(value.lines) is int
            and _is_content(value.content)
            and value.size == compute_size(value.content)
            and value.lines == count_lines(value.content)
        )
    except Exception:
        return False


def is_workspace_snapshot(value: object) -> TypeGuard[WorkspaceSnapshot]:
    """Determines whether a value is a well-formed snapshot: a string id and a tuple of
    well-formed files.

    Never raises.
    """
    return (
        isinstance(value, WorkspaceSnapshot)
        and isinstance(value.id, str)
        and isinstance(value.files, tuple)
        and all(is_file(file) for file in value.files)
    )


def _file_of(value: object) -> File | None:
    if not isinstance(value, dict):
        return None
    content = value.get("content")
    if not isinstance(content, dict):
        return None
    if set(content) == {"text", "language"}:
        arm: TextContent | BinaryContent = TextContent(content["text"], content["language"])
    elif set(content) == {"data", "mime"}:
        arm = BinaryContent(content["data"], content["mime"])
    else:
        return None
    file = File(value.get("path"), arm, value.get("state"), value.get("size"), value.get("lines"))  # type: ignore[arg-type]
    return file if is_file(file) else None


def parse_snapshot(value: object) -> WorkspaceSnapshot | None:
    """Reads a snapshot back from its plain record (see `snapshot_to_record`), giving `None` for
    anything that is not a well-formed record.

    Never raises.
    """
    if not isinstance(value, dict) or not isinstance(value.get("id"), str):
        return None
    records = value.get("files")
    if not isinstance(records, list):
        return None
    files = []
    for record in records:
        file = _file_of(record)
        if file is None:
            return None
        files.append(file)
    return WorkspaceSnapshot(value["id"], tuple(files))
