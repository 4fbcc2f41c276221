"""Low-level file work for the directory store: walking a tree, reading one file safely, writing
one file atomically, and pruning emptied folders.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from dataclasses import dataclass

from orkestrel.workspace.constants import TEMPORARY_SUFFIX
from orkestrel.workspace.helpers import infer_language, is_utf8, sniff_mime
from orkestrel.workspace.stores.paths import is_admitted, is_inside
from orkestrel.workspace.stores.temporary import LOCKS, create_temporary, is_temporary
from orkestrel.workspace.types import BinaryContent, File, TextContent
from orkestrel.workspace.values import create_file

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_READ_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


@dataclass(frozen=True, slots=True)
class Found:
    """A file the walk admits: its workspace path, its real location, and the lexical location
    of the entry (the symlink itself, for a linked file).
    """

    path: str
    real: str
    entry: str


def walk(
    base: str, ignore: frozenset[str], temporaries: list[str] | None = None
) -> dict[str, Found]:
    """Lists the files under the real folder `base` a workspace may hold, sorted by path.

    Regular files are admitted, and symlinks to regular files that stay inside `base` and lead
    into no ignored name. Never followed: symlinked folders, symlinks leading outside or into an
    ignored name, ignored names, temporary files, names that are not valid Unicode, and anything
    that is not a regular file (FIFOs, sockets, devices). The walk is iterative.

    The temporary files of atomic writes it passes are appended to `temporaries` when given.
    """
    found: dict[str, Found] = {}
    pending = [("", base)]
    while pending:
        prefix, folder = pending.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if temporaries is not None and is_temporary(name):
                    temporaries.append(entry.path)
                if name in ignore or name.endswith(TEMPORARY_SUFFIX) or not _readable(name):
                    continue
                path = f"{prefix}/{name}" if prefix else name
                if entry.is_symlink():
                    real = os.path.realpath(entry.path)
                    if is_admitted(real, base, ignore) and os.path.isfile(real):
                        found[path] = Found(path, real, entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    pending.append((path, entry.path))
                elif entry.is_file(follow_symlinks=False):
                    found[path] = Found(path, entry.path, entry.path)
    return dict(sorted(found.items(), key=lambda item: item[0].split("/")))


def _readable(name: str) -> bool:
    return is_utf8(name) and "\\" not in name


def digest(data: bytes) -> bytes:
    """Fingerprints file bytes, to tell later whether a file changed."""
    return hashlib.blake2b(data, digest_size=16).digest()


def read_bytes(real: str, limit: int) -> bytes | None:
    """Reads a regular file of at most `limit` bytes without following a final symlink or
    blocking on a FIFO; gives `None` when the file is not regular or is over the limit.
    """
    descriptor = os.open(real, _READ_FLAGS)
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        return None if len(data) > limit else data
    finally:
        os.close(descriptor)


def to_file(path: str, data: bytes) -> File | None:
    """Turns bytes into a file value: valid UTF-8 becomes text, a supported image becomes
    binary content, anything else gives `None`. Text wins, so a text file that happens to start
    like a GIF stays text (PNG and JPEG data are never valid UTF-8).
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        mime = sniff_mime(data)
        if mime is None:
            return None
        return create_file(path, BinaryContent(base64.b64encode(data).decode("ascii"), mime))
    return create_file(path, TextContent(text, infer_language(path)))


def write_atomic(target: str, data: bytes) -> None:
    """Replaces `target` with `data` atomically: a temporary file in the same folder is written
    and flushed to disk, then renamed over the target, and the folder entry is flushed too. A
    crash leaves the old file or the new one, never a mix, and at worst a temporary file that the
    next read of the folder removes. An existing file keeps its mode.
    """
    folder = os.path.dirname(target)
    temporary, descriptor = create_temporary(folder)
    try:
        try:
            if os.path.isfile(target):
                os.fchmod(descriptor, stat.S_IMODE(os.stat(target).st_mode))
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
            os.fsync(descriptor)
            if not LOCKS:
                os.close(descriptor)
                descriptor = -1
            os.replace(temporary, target)
        finally:
            if descriptor >= 0:
                os.close(descriptor)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise
    sync_folder(folder)


def sync_folder(folder: str) -> None:
    """Flushes a folder's entries to disk, where the platform allows opening a folder."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def prune(folder: str, base: str) -> None:
    """Removes `folder` and then each parent that is left empty, stopping at `base`."""
    while folder != base and is_inside(folder, base):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = os.path.dirname(folder)


def prune_tree(folder: str, base: str) -> None:
    """Removes every empty folder in the tree under `folder`, deepest first, then `folder`."""
    for current, _, _ in os.walk(folder, topdown=False):
        prune(current, base)
