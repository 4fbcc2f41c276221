"""`Plan`: everything a directory store's `set` will do, checked before it does any of it."""

from __future__ import annotations

import os

from orkestrel.workspace.errors import WorkspaceStoreError
from orkestrel.workspace.stores.files import Found, read_bytes
from orkestrel.workspace.stores.paths import is_inside


def _conflict(message: str, path: str) -> WorkspaceStoreError:
    return WorkspaceStoreError("CONFLICT", message, {"path": path})


def _escape(path: str) -> WorkspaceStoreError:
    return WorkspaceStoreError(
        "PATH",
        f"Path reaches through a symlink out of the workspace folder: {path!r}",
        {"path": path},
    )


class Plan:
    """Works out, for a folder `base` holding the admitted files `current`, which files to
    delete, which emptied folders to clear, and which real locations to write so that the
    folder holds exactly `wanted` (path to bytes). Every refusal is raised while planning, so a
    refused `set` touches nothing.
    """

    __slots__ = ("_deleted", "base", "cleared", "deletions", "writes")

    def __init__(self, base: str, wanted: dict[str, bytes], current: dict[str, Found]) -> None:
        self.base = base
        self.deletions = [found for path, found in current.items() if path not in wanted]
        self._deleted = {found.entry for found in self.deletions}
        self.cleared: list[str] = []
        self.writes: list[tuple[str, bytes]] = []
        for path in wanted:
            parts = path.split("/")
            for cut in range(1, len(parts)):
                prefix = "/".join(parts[:cut])
                if prefix in wanted:
                    raise _conflict(
                        f"Path {path!r} needs {prefix!r} to be a folder, but it is a file", path
                    )
        for path, data in wanted.items():
            target = self._target(path)
            if not self._unchanged(target, data):
                self.writes.append((target, data))

    def _target(self, path: str) -> str:
        parts = path.split("/")
        folder = self.base
        for cut, name in enumerate(parts[:-1], start=1):
            folder = os.path.join(folder, name)
            if not os.path.lexists(folder) or folder in self._deleted:
                return os.path.join(folder, *parts[cut:])
            if os.path.islink(folder):
                real = os.path.realpath(folder)
                if not is_inside(real, self.base):
                    raise _escape(path)
                if not os.path.isdir(real):
                    raise _conflict(f"Path {path!r} needs a folder where a file is", path)
                folder = real
            elif not os.path.isdir(folder):
                raise _conflict(f"Path {path!r} needs a folder where a file is", path)
        final = os.path.join(folder, parts[-1])
        if not os.path.lexists(final):
            return final
        real = os.path.realpath(final)
        if not is_inside(real, self.base):
            raise _escape(path)
        if os.path.isdir(real):
            if os.path.islink(final) or not self._clearable(final):
                raise _conflict(f"Path {path!r} is a folder holding other files", path)
            self.cleared.append(final)
            return final
        if not os.path.isfile(real):
            raise _conflict(f"Path {path!r} is not a regular file", path)
        return real

    def _clearable(self, folder: str) -> bool:
        for current, folders, files in os.walk(folder):
            for name in files:
                if os.path.join(current, name) not in self._deleted:
                    return False
            for name in folders:
                if os.path.islink(os.path.join(current, name)):
                    return False
        return True

    def _unchanged(self, target: str, data: bytes) -> bool:
        if not os.path.isfile(target) or os.path.getsize(target) != len(data):
            return False
        return read_bytes(target, len(data)) == data
