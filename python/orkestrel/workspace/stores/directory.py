"""`DirectoryWorkspaceStore`: each workspace kept as real files in a folder, so an agent can edit
a real project through a workspace.
"""

from __future__ import annotations

import base64
import binascii
import os
import threading
from collections.abc import Callable, Iterable
from os import PathLike
from typing import TypeVar

from anyio import to_thread

from orkestrel.workspace.constants import DIRECTORY_FILE_LIMIT, DIRECTORY_IGNORE
from orkestrel.workspace.errors import WorkspaceStoreError
from orkestrel.workspace.stores.files import (
    Found,
    digest,
    prune,
    prune_tree,
    read_bytes,
    to_file,
    walk,
    write_atomic,
)
from orkestrel.workspace.stores.paths import check_id, check_path, is_admitted, is_inside
from orkestrel.workspace.stores.plan import Plan
from orkestrel.workspace.stores.temporary import remove_stale
from orkestrel.workspace.types import File, TextContent, WorkspaceSnapshot

T = TypeVar("T")


class DirectoryWorkspaceStore:
    """Keeps the workspace with id `x` as the files of the folder `root/x`.

    `get` reads the folder: UTF-8 files become text, PNG/JPEG/GIF/WebP files become binary, and
    whatever is neither, over `limit`, ignored, or a symlink leading out of the folder is left
    out and never opened. `set` makes the folder hold exactly the snapshot's files: it writes
    changed files atomically and deletes files it had admitted that the snapshot no longer
    holds; anything it does not admit is never touched. It persists only when called, so with
    a `WorkspaceManager` edits reach the disk on `save`, not before.

    A path that is absolute, not normalized, uses `..`, a NUL byte, a drive letter or a
    backslash, enters an ignored name, or reaches through a symlink out of the folder or into an
    ignored name is refused with a `WorkspaceStoreError` before anything is written.

    With `clean` (the default), `get` also removes the temporary files of writes whose writer
    died (killed mid-write): each writer locks its temporary file, so one nobody holds is known
    to be left over. A read-only caller passes `clean=False`, and the store then changes
    nothing on `get`.
    """

    __slots__ = ("_clean", "_ignore", "_known", "_limit", "_lock", "_root")

    def __init__(
        self,
        root: str | PathLike[str],
        *,
        limit: int = DIRECTORY_FILE_LIMIT,
        ignore: Iterable[str] = DIRECTORY_IGNORE,
        clean: bool = True,
    ) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit must be a non-negative integer, got {limit!r}")
        self._root = os.path.realpath(os.fspath(root))
        self._limit = limit
        self._ignore = frozenset(ignore)
        self._clean = bool(clean)
        self._lock = threading.Lock()
        self._known: dict[str, dict[str, bytes]] = {}

    @property
    def limit(self) -> int:
        """The largest file, in bytes, the store reads or writes."""
        return self._limit

    @property
    def root(self) -> str:
        """The real path of the folder that holds one sub-folder per workspace."""
        return self._root

    async def get(self, id: str) -> WorkspaceSnapshot | None:
        """Reads the folder of workspace `id` into a snapshot, or gives `None` when it is
        absent.
        """
        return await to_thread.run_sync(self._locked, self._get, id)

    async def set(self, snapshot: WorkspaceSnapshot) -> None:
        """Makes the folder of the snapshot's workspace hold exactly its files."""
        await to_thread.run_sync(self._locked, self._set, snapshot)

    async def delete(self, id: str) -> None:
        """Deletes the files of workspace `id` the store admits, then every folder left empty;
        files it does not admit stay.
        """
        await to_thread.run_sync(self._locked, self._delete, id)

    async def read(self, id: str, path: str) -> File | None:
        """Reads one file of workspace `id`, or gives `None` when it is absent; a refused path,
        a file over the limit, or content that is neither UTF-8 text nor a supported image
        raises `WorkspaceStoreError`.
        """
        return await to_thread.run_sync(self._locked, self._read, id, path)

    async def read_bytes(self, id: str, path: str) -> bytes | None:
        """Reads the bytes of one file of workspace `id` whatever they hold, or gives `None`
        when it is absent; a refused path or a file over the limit raises `WorkspaceStoreError`
        as `read` does."""
        return await to_thread.run_sync(self._locked, self._bytes, id, path)

    async def others(self, id: str) -> list[tuple[str, int]]:
        """The path and size of each file of workspace `id` that `get` leaves out for its
        content alone (neither UTF-8 text nor a supported image, within the limit, admitted)."""
        return await to_thread.run_sync(self._locked, self._others, id)

    def __repr__(self) -> str:
        return f"DirectoryWorkspaceStore(root={self._root!r}, limit={self._limit})"

    def _locked(self, work: Callable[..., T], *args: object) -> T:
        with self._lock:
            return work(*args)

    def _base(self, id: str) -> str | None:
        base = os.path.join(self._root, check_id(id, self._ignore))
        if not os.path.lexists(base):
            return None
        real = os.path.realpath(base)
        if not is_inside(real, self._root) or real == self._root:
            raise WorkspaceStoreError(
                "PATH", f"Workspace folder leads outside the store root: {id!r}", {"id": id}
            )
        if not is_admitted(real, self._root, self._ignore):
            raise WorkspaceStoreError(
                "PATH", f"Workspace folder leads into an ignored name: {id!r}", {"id": id}
            )
        return real if os.path.isdir(real) else None

    def _admitted(
        self, base: str, temporaries: list[str] | None = None
    ) -> list[tuple[Found, File, bytes]]:
        admitted = []
        for found in walk(base, self._ignore, temporaries).values():
            data = read_bytes(found.real, self._limit)
            file = None if data is None else to_file(found.path, data)
            if file is not None and data is not None:
                admitted.append((found, file, data))
        return admitted

    def _get(self, id: str) -> WorkspaceSnapshot | None:
        base = self._base(id)
        if base is None:
            self._known.pop(id, None)
            return None
        temporaries: list[str] | None = [] if self._clean else None
        admitted = self._admitted(base, temporaries)
        if temporaries:
            remove_stale(temporaries)
        self._known[id] = {found.path: digest(data) for found, _, data in admitted}
        return WorkspaceSnapshot(id, tuple(file for _, file, _ in admitted))

    def _read(self, id: str, path: str) -> File | None:
        data = self._bytes(id, path)
        if data is None:
            return None
        file = to_file(path, data)
        if file is None:
            raise WorkspaceStoreError(
                "ENCODING",
                f"File is neither UTF-8 text nor a supported image: {path!r}",
                {"path": path},
            )
        return file

    def _others(self, id: str) -> list[tuple[str, int]]:
        base = self._base(id)
        if base is None:
            return []
        others = []
        for found in walk(base, self._ignore).values():
            data = read_bytes(found.real, self._limit)
            if data is not None and to_file(found.path, data) is None:
                others.append((found.path, len(data)))
        return others

    def _bytes(self, id: str, path: str) -> bytes | None:
        segments = check_path(path, self._ignore)
        base = self._base(id)
        if base is None:
            return None
        location = os.path.join(base, *segments)
        if not os.path.lexists(location):
            return None
        real = os.path.realpath(location)
        if not is_inside(real, base):
            raise WorkspaceStoreError(
                "PATH", f"Path leads outside the workspace folder: {path!r}", {"path": path}
            )
        if not is_admitted(real, base, self._ignore):
            raise WorkspaceStoreError(
                "PATH",
                f"Path leads through a symlink into an ignored name: {path!r}",
                {"path": path},
            )
        if os.path.isdir(real):
            return None
        if not os.path.isfile(real):
            raise WorkspaceStoreError(
                "PATH", f"Path is not a regular file: {path!r}", {"path": path}
            )
        data = read_bytes(real, self._limit)
        if data is None:
            raise WorkspaceStoreError(
                "LIMIT", f"File is over the {self._limit}-byte limit: {path!r}", {"path": path}
            )
        return data

    def _set(self, snapshot: WorkspaceSnapshot) -> None:
        id = check_id(snapshot.id, self._ignore)
        wanted = {file.path: self._encode(file) for file in snapshot.files}
        base = self._base(id)
        location = os.path.join(self._root, id)
        if base is None and os.path.lexists(location):
            raise WorkspaceStoreError(
                "CONFLICT", f"Workspace location is not a folder: {id!r}", {"id": id}
            )
        plan = Plan(base or location, wanted, self._known.get(id, {}), self._limit, self._ignore)
        os.makedirs(plan.base, exist_ok=True)
        for entry in plan.deletions:
            os.unlink(entry)
            prune(os.path.dirname(entry), plan.base)
        for folder in plan.cleared:
            prune_tree(folder, plan.base)
        for target, data in plan.writes:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            write_atomic(target, data)
        self._known[id] = {path: digest(data) for path, data in wanted.items()}

    def _encode(self, file: File) -> bytes:
        check_path(file.path, self._ignore)
        try:
            if isinstance(file.content, TextContent):
                data = file.content.text.encode("utf-8")
            else:
                data = base64.b64decode(file.content.data, validate=True)
        except (UnicodeEncodeError, binascii.Error, ValueError) as error:
            raise WorkspaceStoreError(
                "ENCODING",
                f"Content of {file.path!r} cannot be encoded: {error}",
                {"path": file.path},
            ) from None
        if len(data) > self._limit:
            raise WorkspaceStoreError(
                "LIMIT",
                f"Content of {file.path!r} is {len(data)} bytes, over the {self._limit}-byte limit",
                {"path": file.path, "size": len(data), "limit": self._limit},
            )
        return data

    def _delete(self, id: str) -> None:
        base = self._base(id)
        self._known.pop(id, None)
        if base is None:
            return
        for found, _, _ in self._admitted(base):
            os.unlink(found.entry)
            prune(os.path.dirname(found.entry), base)
        prune(base, self._root)
