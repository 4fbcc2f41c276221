"""`ConversationManager`: conversations by id, one active selection, durability through a store."""

from __future__ import annotations

from collections.abc import Sequence

from orkestrel.agent.conversation import Conversation
from orkestrel.agent.types import (
    ConversationInterface,
    ConversationSnapshot,
    ConversationStoreInterface,
)
from orkestrel.agent.validators import parse_conversation_snapshot


class ConversationManager:
    """Registers conversations in insertion order with one active selection, and with a store can
    `open` a conversation from its snapshot and `save` one back.

    Nothing is saved on its own: durability is an explicit `save`.
    """

    __slots__ = ("_active", "_conversations", "_store")

    def __init__(self, store: ConversationStoreInterface | None = None) -> None:
        self._conversations: dict[str, ConversationInterface] = {}
        self._active: str | None = None
        self._store = store

    @property
    def count(self) -> int:
        """How many conversations are registered."""
        return len(self._conversations)

    @property
    def active(self) -> ConversationInterface | None:
        """The selected conversation, resolved through the registry on every read."""
        return None if self._active is None else self._conversations.get(self._active)

    @property
    def store(self) -> ConversationStoreInterface | None:
        """The store `open` and `save` go through, or `None`."""
        return self._store

    def add(
        self, id: str | None = None, snapshot: ConversationSnapshot | None = None
    ) -> ConversationInterface:
        """Creates and registers a conversation (replacing one with the same id), restoring the id
        and messages of `snapshot` when given, and activates it when nothing is active yet.

        A snapshot that is not well formed raises `ValueError`.
        """
        if snapshot is not None:
            owned = parse_conversation_snapshot(snapshot)
            if owned is None:
                raise ValueError("not a well-formed conversation snapshot")
            conversation = Conversation(owned["id"], owned["messages"])
        else:
            conversation = Conversation(id)
        self._conversations[conversation.id] = conversation
        if self._active is None:
            self._active = conversation.id
        return conversation

    def switch(self, id: str) -> ConversationInterface | None:
        """Re-points the active selection to a registered id; an unknown id changes nothing and
        gives `None`.
        """
        conversation = self._conversations.get(id)
        if conversation is not None:
            self._active = id
        return conversation

    def conversation(self, id: str) -> ConversationInterface | None:
        """Finds a registered conversation by id."""
        return self._conversations.get(id)

    def conversations(self) -> list[ConversationInterface]:
        """Lists the registered conversations in insertion order."""
        return list(self._conversations.values())

    async def open(self, id: str) -> ConversationInterface | None:
        """Activates a registered conversation, or hydrates one from the store's snapshot,
        registers and activates it; a miss gives `None`.
        """
        existing = self._conversations.get(id)
        if existing is not None:
            self._active = id
            return existing
        if self._store is None:
            return None
        snapshot = await self._store.get(id)
        if snapshot is None:
            return None
        conversation = self.add(snapshot=snapshot)
        self._active = conversation.id
        return conversation

    async def save(self, id: str) -> bool:
        """Writes a registered conversation's snapshot to the store; `False` without a store or
        for an unknown id.
        """
        conversation = self._conversations.get(id)
        if self._store is None or conversation is None:
            return False
        await self._store.set(conversation.snapshot())
        return True

    def remove(self, id: str | Sequence[str]) -> bool:
        """Drops one id or a batch of ids, clearing the selection when it goes; stored snapshots
        stay. Reports whether anything was removed.
        """
        ids = [id] if isinstance(id, str) else list(id)
        removed = [self._conversations.pop(one, None) is not None for one in ids]
        if self._active is not None and self._active not in self._conversations:
            self._active = None
        return any(removed)

    def clear(self) -> None:
        """Empties the registry and the selection."""
        self._conversations.clear()
        self._active = None

    def __repr__(self) -> str:
        return f"ConversationManager(count={len(self._conversations)}, active={self._active!r})"
