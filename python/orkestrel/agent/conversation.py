"""`Conversation`: an ordered list of immutable messages under an id."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, overload

from orkestrel.agent.messages import copy_message
from orkestrel.agent.types import ConversationSnapshot, Message, MessageInput


class Conversation:
    """Holds messages in order under an id, minting each message's id as it is added.

    Messages are checked and copied on the way in and copied on the way out, so a stored message
    never changes. `view()` is what a model is shown: every message, in order.
    """

    __slots__ = ("_id", "_messages")

    def __init__(self, id: str | None = None, messages: Iterable[Message] = ()) -> None:
        self._id = id if id is not None else uuid.uuid4().hex
        self._messages: dict[str, Message] = {}
        for message in messages:
            stored = copy_message(message)
            self._messages[stored["id"]] = stored

    @property
    def id(self) -> str:
        """The conversation's id: the given one, or a random hex UUID."""
        return self._id

    @property
    def count(self) -> int:
        """How many messages the conversation holds."""
        return len(self._messages)

    @overload
    def add(self, input: MessageInput) -> Message: ...
    @overload
    def add(self, input: Sequence[MessageInput]) -> list[Message]: ...
    def add(self, input: MessageInput | Sequence[MessageInput]) -> Message | list[Message]:
        """Stores one message, or a list of them in order, and returns what was stored.

        Every message of a list is checked before any is stored; a malformed one raises
        `AgentError` (`MESSAGE`) and stores nothing.
        """
        if isinstance(input, Mapping):
            stored = self._mint(input)
            self._messages[stored["id"]] = stored
            return copy_message(stored)
        batch = [self._mint(item) for item in input]
        for stored in batch:
            self._messages[stored["id"]] = stored
        return [copy_message(stored) for stored in batch]

    def message(self, id: str) -> Message | None:
        """Finds one message by id, as a copy."""
        found = self._messages.get(id)
        return None if found is None else copy_message(found)

    def messages(self) -> list[Message]:
        """Lists every message in order, as copies."""
        return [copy_message(message) for message in self._messages.values()]

    def remove(self, id: str | Sequence[str]) -> bool:
        """Drops one message or a batch of messages by id, reporting whether any was there."""
        ids = [id] if isinstance(id, str) else list(id)
        return any([self._messages.pop(one, None) is not None for one in ids])

    def clear(self) -> None:
        """Drops every message."""
        self._messages.clear()

    def view(self) -> list[Message]:
        """Lists the messages a model is shown, in order, as copies."""
        return self.messages()

    def snapshot(self) -> ConversationSnapshot:
        """Projects the conversation into its exact JSON snapshot, `{id, sections, messages}`."""
        return {"id": self._id, "sections": [], "messages": self.messages()}

    def _mint(self, input: Any) -> Message:
        return copy_message(input, uuid.uuid4().hex)

    def __repr__(self) -> str:
        return f"Conversation(id={self._id!r}, count={len(self._messages)})"
