"""Running a command where a folder cannot be written: a read-only bind mount in a private mount
namespace (`unshare`), or, for a user that is not root, the folder's write bits taken away."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_MOUNT = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'


def _prefixes(folder: Path) -> Iterator[list[str]]:
    unshare = shutil.which("unshare")
    if unshare is None:
        return
    for flags in (["--mount"], ["--map-root-user", "--mount"]):
        yield [unshare, *flags, "sh", "-c", _MOUNT, str(folder)]


def _refuses_writes(prefix: list[str], folder: Path) -> bool:
    probe = [*prefix, "sh", "-c", 'touch "$0/.probe"', str(folder)]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    leaked = (folder / ".probe").exists()
    if leaked:
        (folder / ".probe").unlink()
    return done.returncode != 0 and "Read-only file system" in done.stderr and not leaked


@contextmanager
def readonly_folder(folder: Path) -> Iterator[list[str] | None]:
    """Gives a command prefix that runs a command with `folder` (and all under it) read-only,
    or `None` when this machine offers no way to (the caller then skips)."""
    for prefix in _prefixes(folder):
        if _refuses_writes(prefix, folder):
            yield prefix
            return
    if os.geteuid() == 0:
        yield None
        return
    modes = {path: path.stat().st_mode for path in [folder, *folder.rglob("*")]}
    for path, mode in modes.items():
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        yield []
    finally:
        for path, mode in modes.items():
            path.chmod(mode)
