"""`AgentContext`: an agent's instructions, tools and conversations, and the prompt built from
them."""

from __future__ import annotations

from orkestrel.agent.manager import ConversationManager
from orkestrel.agent.types import (
    ConversationInterface,
    ConversationManagerInterface,
    Message,
)
from orkestrel.tool import ToolManager, ToolManagerInterface


class AgentContext:
    """Holds what an agent works with: optional `system` instructions, a tool registry and a
    conversation registry that always has an active conversation.

    `build()` is the model input of the next turn, computed fresh on every call: a leading
    `system` message when there are instructions, then the active conversation's view. Tools are
    advertised separately, never in the prompt.
    """

    __slots__ = ("_conversations", "_system", "_tools")

    def __init__(
        self,
        *,
        system: str | None = None,
        tools: ToolManagerInterface | None = None,
        conversations: ConversationManagerInterface | None = None,
    ) -> None:
        if system is not None and not isinstance(system, str):
            raise TypeError("system must be a string or None")
        self._system = system
        self._tools = tools if tools is not None else ToolManager()
        self._conversations = conversations if conversations is not None else ConversationManager()
        if self._conversations.active is None:
            self._conversations.add()

    @property
    def system(self) -> str | None:
        """The instructions that lead every prompt, or `None`."""
        return self._system

    @property
    def tools(self) -> ToolManagerInterface:
        """The registry of tools the agent may call."""
        return self._tools

    @property
    def conversations(self) -> ConversationManagerInterface:
        """The registry of conversations; its active one is the one the agent talks in."""
        return self._conversations

    @property
    def messages(self) -> ConversationInterface:
        """The active conversation, made and activated first if the registry has lost it."""
        active = self._conversations.active
        if active is None:
            active = self._conversations.add()
            self._conversations.switch(active.id)
        return active

    def build(self) -> list[Message]:
        """Builds the model input: the `system` message when there are instructions, then the
        active conversation's messages.
        """
        prompt = self.messages.view()
        if self._system is None:
            return prompt
        return [{"id": "system", "role": "system", "content": self._system}, *prompt]

    def __repr__(self) -> str:
        return f"AgentContext(tools={self._tools.count}, conversations={self._conversations.count})"
