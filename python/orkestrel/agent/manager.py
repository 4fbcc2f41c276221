"""`ConversationManager`: conversations by id, one active selection, durability through a store."""

from __future__ import annotations

from orkestrel._registry import Registry
from orkestrel.agent.conversation import Conversation
from orkestrel.agent.types import (
    ConversationInterface,
    ConversationSnapshot,
    ConversationStoreInterface,
)
from orkestrel.agent.validators import parse_conversation_snapshot


class ConversationManager(Registry[ConversationInterface, ConversationSnapshot]):
    """Registers conversations in insertion order with one active selection, and with a store can
    `open` a conversation from its snapshot and `save` one back.

    Nothing is saved on its own: durability is an explicit `save`.
    """

    __slots__ = ()
    _store: ConversationStoreInterface | None

    def __init__(self, store: ConversationStoreInterface | None = None) -> None:
        super().__init__(store)

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
            return self._register(Conversation(owned["id"], owned["messages"]))
        return self._register(Conversation(id))

    def _hydrate(self, id: str, snapshot: ConversationSnapshot) -> ConversationInterface:
        """Registers the conversation a stored snapshot describes."""
        return self.add(snapshot=snapshot)

    def conversation(self, id: str) -> ConversationInterface | None:
        """Finds a registered conversation by id."""
        return self._items.get(id)

    def conversations(self) -> list[ConversationInterface]:
        """Lists the registered conversations in insertion order."""
        return list(self._items.values())
