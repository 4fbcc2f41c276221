"""The temporary files of atomic writes: each one is locked by the writer that owns it, so a
file nobody holds is known to be left over from a writer that died, and can be removed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import time
from collections.abc import Iterable

from orkestrel.workspace.constants import TEMPORARY_SUFFIX

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows has no advisory locks
    fcntl = None  # type: ignore[assignment]

TEMPORARY_PREFIX = ".orkestrel-"
"""Starts the name of every temporary file a directory store writes."""

UNLOCKED_AGE = 3600.0
"""Seconds after which a temporary file counts as left over where files cannot be locked."""

LOCKS = fcntl is not None
"""Whether writers lock their temporary files (POSIX `flock`), so a left-over file is told
from one being written at once rather than by its age."""

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_PROBE = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_PROBE |= getattr(os, "O_CLOEXEC", 0)


def is_temporary(name: str) -> bool:
    """Whether a file name is one a directory store gives its temporary files."""
    return name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)


def create_temporary(folder: str) -> tuple[str, int]:
    """Creates a fresh temporary file in `folder` and returns its path and a descriptor that
    holds its lock for as long as it stays open.

    A file removed as left over between its creation and its locking is given up for a new one.
    """
    while True:
        temporary = os.path.join(
            folder, f"{TEMPORARY_PREFIX}{secrets.token_hex(8)}{TEMPORARY_SUFFIX}"
        )
        descriptor = os.open(temporary, _CREATE, 0o666)
        if fcntl is None:
            return temporary, descriptor
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        if os.fstat(descriptor).st_nlink > 0:
            return temporary, descriptor
        os.close(descriptor)


def remove_stale(paths: Iterable[str]) -> None:
    """Removes the temporary files among `paths` whose writer is gone: nobody holds their lock
    (or, without locks, they are older than `UNLOCKED_AGE`). Files in use, and files that are
    not regular files, are left alone."""
    for path in paths:
        with contextlib.suppress(OSError):
            _remove_if_stale(path)


def _remove_if_stale(path: str) -> None:
    descriptor = os.open(path, _PROBE)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return
        if fcntl is None:
            if time.time() - info.st_mtime > UNLOCKED_AGE:
                os.close(descriptor)
                descriptor = -1
                os.unlink(path)
            return
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        if os.path.samestat(info, os.lstat(path)):
            os.unlink(path)
    finally:
        if descriptor >= 0:
            os.close(descriptor)
