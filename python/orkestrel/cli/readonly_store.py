"""`ReadonlyWorkspaceStore`: a workspace store that reads and refuses every write."""

from __future__ import annotations

from orkestrel.workspace import WorkspaceSnapshot, WorkspaceStoreInterface


class ReadonlyWorkspaceStore:
    """Represents a workspace store opened read-only: reads pass through to the store it wraps,
    and every write raises `PermissionError` before reaching it."""

    __slots__ = ("_store",)

    def __init__(self, store: WorkspaceStoreInterface) -> None:
        self._store = store

    async def get(self, id: str) -> WorkspaceSnapshot | None:
        """Reads the snapshot of workspace `id` from the wrapped store."""
        return await self._store.get(id)

    async def set(self, snapshot: WorkspaceSnapshot) -> None:
        """Refuses to write a snapshot."""
        raise PermissionError(f"the workspace store is read-only: {snapshot.id!r} was not written")

    async def delete(self, id: str) -> None:
        """Refuses to delete a workspace."""
        raise PermissionError(f"the workspace store is read-only: {id!r} was not deleted")
