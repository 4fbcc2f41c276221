"""`MemoryWorkspaceStore`: snapshots kept in a dict for the life of the process."""

from __future__ import annotations

from orkestrel.workspace.types import WorkspaceSnapshot


class MemoryWorkspaceStore:
    """Keeps snapshots by id in memory for the life of the process.

    Snapshots are immutable, so nothing is copied.
    """

    __slots__ = ("_snapshots",)

    def __init__(self) -> None:
        self._snapshots: dict[str, WorkspaceSnapshot] = {}

    async def get(self, id: str) -> WorkspaceSnapshot | None:
        """Gives the snapshot stored under `id`, or `None`."""
        return self._snapshots.get(id)

    async def set(self, snapshot: WorkspaceSnapshot) -> None:
        """Stores a snapshot under its own id, replacing any before it."""
        self._snapshots[snapshot.id] = snapshot

    async def delete(self, id: str) -> None:
        """Forgets the snapshot under `id`; an absent id is already satisfied."""
        self._snapshots.pop(id, None)
