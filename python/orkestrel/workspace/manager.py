"""`WorkspaceManager`: workspaces by id, one active selection, durability through a store."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from orkestrel.workspace.constants import DIRECTORY_FILE_LIMIT
from orkestrel.workspace.types import File, WorkspaceInterface, WorkspaceStoreInterface
from orkestrel.workspace.workspace import Workspace


class WorkspaceManager:
    """Registers workspaces in insertion order with one active selection, and with a store can
    `open` a workspace from its snapshot and `save` one back.

    Edits are never saved on their own: durability is an explicit `save`. Every workspace it
    creates is bounded by `limit` (see `Workspace`): by default the store's own `limit` when it
    declares one (a directory store's file limit), else `DIRECTORY_FILE_LIMIT`, so one call
    cannot build what the store would refuse to keep.
    """

    __slots__ = ("_active", "_limit", "_store", "_workspaces")

    def __init__(
        self, store: WorkspaceStoreInterface | None = None, *, limit: int | None = None
    ) -> None:
        self._workspaces: dict[str, WorkspaceInterface] = {}
        self._active: str | None = None
        self._store = store
        if limit is None:
            declared = getattr(store, "limit", None)
            limit = declared if type(declared) is int and declared >= 0 else DIRECTORY_FILE_LIMIT
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise ValueError(f"limit must be a non-negative integer, got {limit!r}")
        self._limit = limit

    @property
    def limit(self) -> int:
        """The size limit of the workspaces the manager creates."""
        return self._limit

    @property
    def count(self) -> int:
        """How many workspaces are registered."""
        return len(self._workspaces)

    @property
    def active(self) -> WorkspaceInterface | None:
        """The selected workspace, resolved through the registry on every read."""
        return None if self._active is None else self._workspaces.get(self._active)

    def workspace(self, id: str) -> WorkspaceInterface | None:
        """Finds a registered workspace by id."""
        return self._workspaces.get(id)

    def workspaces(self) -> list[WorkspaceInterface]:
        """Lists the registered workspaces in insertion order."""
        return list(self._workspaces.values())

    def add(self, id: str | None = None, seed: Iterable[File] | None = None) -> WorkspaceInterface:
        """Creates and registers a workspace (replacing one with the same id), activating it
        when nothing is active yet.
        """
        workspace = Workspace(id, seed, limit=self._limit)
        self._workspaces[workspace.id] = workspace
        if self._active is None:
            self._active = workspace.id
        return workspace

    def switch(self, id: str) -> WorkspaceInterface | None:
        """Re-points the active selection to a registered id; an unknown id changes nothing and
        gives `None`.
        """
        workspace = self._workspaces.get(id)
        if workspace is not None:
            self._active = id
        return workspace

    async def open(self, id: str) -> WorkspaceInterface | None:
        """Activates a registered workspace, or hydrates one from the store's snapshot,
        registers and activates it; a miss gives `None`.
        """
        existing = self._workspaces.get(id)
        if existing is not None:
            self._active = id
            return existing
        if self._store is None:
            return None
        snapshot = await self._store.get(id)
        if snapshot is None:
            return None
        workspace = self.add(id, snapshot.files)
        self._active = workspace.id
        return workspace

    async def save(self, id: str) -> bool:
        """Writes a registered workspace's snapshot to the store; `False` without a store or
        for an unknown id.
        """
        workspace = self._workspaces.get(id)
        if self._store is None or workspace is None:
            return False
        await self._store.set(workspace.snapshot())
        return True

    def remove(self, id: str | Sequence[str]) -> bool:
        """Drops one id or a batch of ids, clearing the selection when it goes; stored snapshots
        stay. Reports whether anything was removed.
        """
        ids = [id] if isinstance(id, str) else list(id)
        removed = [self._workspaces.pop(one, None) is not None for one in ids]
        if self._active is not None and self._active not in self._workspaces:
            self._active = None
        return any(removed)

    def clear(self) -> None:
        """Empties the registry and the selection."""
        self._workspaces.clear()
        self._active = None

    def __repr__(self) -> str:
        return f"WorkspaceManager(count={len(self._workspaces)}, active={self._active!r})"
