"""`WorkspaceManager`: workspaces by id, one active selection, durability through a store."""

from __future__ import annotations

from collections.abc import Iterable

from orkestrel._registry import Registry
from orkestrel.workspace.constants import DIRECTORY_FILE_LIMIT
from orkestrel.workspace.types import (
    File,
    WorkspaceInterface,
    WorkspaceSnapshot,
    WorkspaceStoreInterface,
)
from orkestrel.workspace.workspace import Workspace


class WorkspaceManager(Registry[WorkspaceInterface, WorkspaceSnapshot]):
    """Registers workspaces in insertion order with one active selection, and with a store can
    `open` a workspace from its snapshot and `save` one back.

    Edits are never saved on their own: durability is an explicit `save`. Every workspace it
    creates is bounded by `limit` (see `Workspace`): by default the store's own `limit` when it
    declares one (a directory store's file limit), else `DIRECTORY_FILE_LIMIT`, so one call
    cannot build what the store would refuse to keep.
    """

    __slots__ = ("_limit",)

    def __init__(
        self, store: WorkspaceStoreInterface | None = None, *, limit: int | None = None
    ) -> None:
        super().__init__(store)
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

    def workspace(self, id: str) -> WorkspaceInterface | None:
        """Finds a registered workspace by id."""
        return self._items.get(id)

    def workspaces(self) -> list[WorkspaceInterface]:
        """Lists the registered workspaces in insertion order."""
        return list(self._items.values())

    def add(self, id: str | None = None, seed: Iterable[File] | None = None) -> WorkspaceInterface:
        """Creates and registers a workspace (replacing one with the same id), activating it
        when nothing is active yet.
        """
        return self._register(Workspace(id, seed, limit=self._limit))

    def _hydrate(self, id: str, snapshot: WorkspaceSnapshot) -> WorkspaceInterface:
        """Registers the workspace a stored snapshot describes, under the id it was opened by."""
        return self.add(id, snapshot.files)
