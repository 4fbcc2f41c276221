"""Validation of the ids and paths a directory store turns into file-system locations.

Every check here is lexical and touches nothing; the store checks where symlinks lead
separately, against the real file system.
"""

from __future__ import annotations

import os
import re

from orkestrel.workspace.constants import TEMPORARY_SUFFIX
from orkestrel.workspace.errors import WorkspaceStoreError
from orkestrel.workspace.helpers import is_utf8

_DRIVE = re.compile(r"^[A-Za-z]:")
_NAME_BYTES = 255

PATH_DEPTH_LIMIT = 256
"""The most parts a workspace path may have on disk."""

PATH_BYTES_LIMIT = 2048
"""The longest workspace path, in UTF-8 bytes, a directory store takes; with the store's own
folder it stays under the 4,096 bytes a Linux path may hold."""


def _short(path: str) -> str:
    return repr(path) if len(path) <= 80 else repr(path[:80]) + "…"


def _refuse(message: str, path: str) -> WorkspaceStoreError:
    return WorkspaceStoreError("PATH", message, {"path": path})


def check_segment(name: str, path: str, ignore: frozenset[str]) -> None:
    """Refuses one path segment that is empty, `.` or `..`, ignored, reserved for temporary
    files, or too long for a file name.
    """
    if name in ("", ".", ".."):
        raise _refuse(
            f"Path must be relative and normalized (no empty, '.' or '..' parts): {path!r}", path
        )
    if name in ignore:
        raise _refuse(f"Path enters an ignored name {name!r}: {path!r}", path)
    if name.endswith(TEMPORARY_SUFFIX):
        raise _refuse(f"Path uses the name reserved for temporary files: {path!r}", path)
    if len(name.encode("utf-8")) > _NAME_BYTES:
        raise _refuse(f"Path has a part longer than {_NAME_BYTES} bytes: {path!r}", path)


def check_path(path: object, ignore: frozenset[str]) -> tuple[str, ...]:
    """Splits a workspace path into its segments after refusing anything that is not a
    relative, normalized, forward-slash path: absolute paths, drive letters, backslashes, NUL
    bytes, lone surrogates, empty, `.` or `..` segments, and paths deeper than
    `PATH_DEPTH_LIMIT` parts or longer than `PATH_BYTES_LIMIT` bytes.
    """
    if not isinstance(path, str):
        raise WorkspaceStoreError("PATH", f"Path must be a string: {path!r}", {"path": repr(path)})
    if "\x00" in path:
        raise _refuse(f"Path contains a NUL byte: {path!r}", path)
    if "\\" in path:
        raise _refuse(f"Path contains a backslash (Windows separator): {path!r}", path)
    if path.startswith("/"):
        raise _refuse(f"Path is absolute: {path!r}", path)
    if _DRIVE.match(path):
        raise _refuse(f"Path starts with a drive letter: {path!r}", path)
    if not is_utf8(path):
        raise _refuse(f"Path is not valid Unicode text: {path!r}", path)
    size = len(path.encode("utf-8"))
    if size > PATH_BYTES_LIMIT:
        raise _refuse(
            f"Path is {size} bytes long, over the {PATH_BYTES_LIMIT}-byte limit: {_short(path)}",
            path,
        )
    depth = path.count("/") + 1
    if depth > PATH_DEPTH_LIMIT:
        raise _refuse(
            f"Path is {depth} levels deep, over the {PATH_DEPTH_LIMIT}-level limit: {_short(path)}",
            path,
        )
    segments = tuple(path.split("/"))
    for name in segments:
        check_segment(name, path, ignore)
    return segments


def check_id(id: object, ignore: frozenset[str]) -> str:
    """Refuses a workspace id that is not a single safe folder name."""
    if not isinstance(id, str):
        raise WorkspaceStoreError(
            "PATH", f"Workspace id must be a string: {id!r}", {"id": repr(id)}
        )
    if "/" in id:
        raise WorkspaceStoreError(
            "PATH", f"Workspace id must be one folder name: {id!r}", {"id": id}
        )
    check_path(id, ignore)
    return id


def is_inside(path: str, root: str) -> bool:
    """Whether a real (symlink-free) absolute `path` is `root` itself or lies beneath it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def is_admitted(real: str, base: str, ignore: frozenset[str]) -> bool:
    """Whether the real (symlink-free) location a path resolves to may be touched: inside the
    real folder `base`, and passing through no ignored name and no temporary file name on the
    way from `base`, so that a symlink cannot lead into `.git` or the toolbox's data folder.
    """
    if not is_inside(real, base):
        return False
    relative = real[len(base) :].split(os.sep)
    return not any(part in ignore or part.endswith(TEMPORARY_SUFFIX) for part in relative if part)
