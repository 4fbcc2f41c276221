"""`Plan`: everything a directory store's `set` will do, checked before it does any of it."""

from __future__ import annotations

import os

from orkestrel.workspace.errors import WorkspaceStoreError
from orkestrel.workspace.stores.files import digest, read_bytes
from orkestrel.workspace.stores.paths import is_admitted, is_inside


def _conflict(message: str, path: str) -> WorkspaceStoreError:
    return WorkspaceStoreError("CONFLICT", message, {"path": path})


def _escape(path: str) -> WorkspaceStoreError:
    return WorkspaceStoreError(
        "PATH",
        f"Path reaches through a symlink out of the workspace folder: {path!r}",
        {"path": path},
    )


def _ignored(path: str) -> WorkspaceStoreError:
    return WorkspaceStoreError(
        "PATH", f"Path reaches through a symlink into an ignored name: {path!r}", {"path": path}
    )


def _changed(path: str) -> WorkspaceStoreError:
    return _conflict(
        f"File on disk was changed by someone else, or never read by this store: {path!r}", path
    )


class Plan:
    """Works out how the folder `base` comes to hold exactly `wanted` (path to bytes), given
    `known` (path to digest): the files this store last read or wrote there.

    Deleted are the known files `wanted` no longer holds. Written are the wanted files whose
    bytes differ from what the store last saw. A file on disk the store has not seen, or one
    another program changed since, is never overwritten or deleted: that is a `CONFLICT`. A path
    whose real location lies outside `base` or passes through an `ignore` name is a `PATH`
    refusal, however its symlinks lead there. Every refusal is raised while planning, so a
    refused `set` touches nothing.
    """

    __slots__ = ("_deleted", "_ignore", "_limit", "base", "cleared", "deletions", "writes")

    def __init__(
        self,
        base: str,
        wanted: dict[str, bytes],
        known: dict[str, bytes],
        limit: int,
        ignore: frozenset[str],
    ) -> None:
        self.base = base
        self._limit = limit
        self._ignore = ignore
        self.cleared: list[str] = []
        self.writes: list[tuple[str, bytes]] = []
        self.deletions: list[str] = []
        for path in wanted:
            parts = path.split("/")
            for cut in range(1, len(parts)):
                prefix = "/".join(parts[:cut])
                if prefix in wanted:
                    raise _conflict(
                        f"Path {path!r} needs {prefix!r} to be a folder, but it is a file", path
                    )
        for path, fingerprint in known.items():
            if path not in wanted:
                self._delete(path, fingerprint)
        self._deleted = set(self.deletions)
        for path, data in wanted.items():
            seen = known.get(path)
            if seen is not None and digest(data) == seen:
                continue
            target, exists = self._target(path)
            if exists:
                on_disk = read_bytes(target, self._limit)
                if on_disk == data:
                    continue
                if on_disk is None or seen is None or digest(on_disk) != seen:
                    raise _changed(path)
            self.writes.append((target, data))

    def _delete(self, path: str, seen: bytes) -> None:
        entry = os.path.join(self.base, *path.split("/"))
        if not os.path.lexists(entry):
            return
        real = os.path.realpath(entry)
        if is_inside(real, self.base) and not is_admitted(real, self.base, self._ignore):
            raise _ignored(path)
        if not is_inside(real, self.base) or not os.path.isfile(real):
            raise _changed(path)
        data = read_bytes(real, self._limit)
        if data is None or digest(data) != seen:
            raise _changed(path)
        self.deletions.append(entry)

    def _target(self, path: str) -> tuple[str, bool]:
        target, exists = self._locate(path)
        real = os.path.realpath(target)
        if not is_inside(real, self.base):
            raise _escape(path)
        if not is_admitted(real, self.base, self._ignore):
            raise _ignored(path)
        return target, exists

    def _locate(self, path: str) -> tuple[str, bool]:
        parts = path.split("/")
        folder = self.base
        for cut, name in enumerate(parts[:-1], start=1):
            folder = os.path.join(folder, name)
            if not os.path.lexists(folder) or folder in self._deleted:
                return os.path.join(folder, *parts[cut:]), False
            if os.path.islink(folder):
                real = os.path.realpath(folder)
                if not is_inside(real, self.base):
                    raise _escape(path)
                if not is_admitted(real, self.base, self._ignore):
                    raise _ignored(path)
                folder = real
            if not os.path.isdir(folder):
                raise _conflict(f"Path {path!r} needs a folder where a file is", path)
        final = os.path.join(folder, parts[-1])
        if not os.path.lexists(final):
            return final, False
        real = os.path.realpath(final)
        if not is_inside(real, self.base):
            raise _escape(path)
        if not is_admitted(real, self.base, self._ignore):
            raise _ignored(path)
        if os.path.isdir(real):
            if os.path.islink(final) or not self._clearable(final):
                raise _conflict(f"Path {path!r} is a folder holding other files", path)
            self.cleared.append(final)
            return final, False
        if not os.path.isfile(real):
            raise _conflict(f"Path {path!r} is not a regular file", path)
        return real, True

    def _clearable(self, folder: str) -> bool:
        for current, folders, files in os.walk(folder):
            if any(os.path.join(current, name) not in self._deleted for name in files):
                return False
            if any(os.path.islink(os.path.join(current, name)) for name in folders):
                return False
        return True
