"""`MemoryConversationStore`: snapshots kept in a dict for the life of the process."""

from __future__ import annotations

from orkestrel.agent.types import ConversationSnapshot
from orkestrel.agent.validators import parse_conversation_snapshot


class MemoryConversationStore:
    """Keeps conversation snapshots by id in memory for the life of the process.

    Snapshots are copied on the way in and on the way out, so neither side can change the
    other's.
    """

    __slots__ = ("_snapshots",)

    def __init__(self) -> None:
        self._snapshots: dict[str, ConversationSnapshot] = {}

    async def get(self, id: str) -> ConversationSnapshot | None:
        """Gives a copy of the snapshot stored under `id`, or `None`."""
        found = self._snapshots.get(id)
        return None if found is None else parse_conversation_snapshot(found)

    async def set(self, snapshot: ConversationSnapshot) -> None:
        """Stores a copy of a snapshot under its own id, replacing any before it; a snapshot
        that is not well formed raises `ValueError` and stores nothing.
        """
        owned = parse_conversation_snapshot(snapshot)
        if owned is None:
            raise ValueError("not a well-formed conversation snapshot")
        self._snapshots[owned["id"]] = owned

    async def delete(self, id: str) -> None:
        """Forgets the snapshot under `id`; an absent id is already satisfied."""
        self._snapshots.pop(id, None)

    def ids(self) -> list[str]:
        """Lists the ids of the stored snapshots, in the order they were first stored."""
        return list(self._snapshots)

    def __repr__(self) -> str:
        return f"MemoryConversationStore(count={len(self._snapshots)})"
