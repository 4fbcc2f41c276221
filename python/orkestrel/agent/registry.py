"""`AgentRegistry`: named providers and tools, and agents built from serializable jobs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel.abort import AbortSignal
from orkestrel.agent.agent import Agent
from orkestrel.agent.constants import DEFAULT_AGENT_LIMIT
from orkestrel.agent.errors import AgentError
from orkestrel.agent.manager import ConversationManager
from orkestrel.agent.types import (
    AgentBudgetInterface,
    AgentJobInput,
    ConversationStoreInterface,
    MessageInput,
    ProviderInterface,
)
from orkestrel.contract import preview
from orkestrel.tool import ToolInterface, ToolManager

_JOB_KEYS = frozenset({"provider", "messages", "system", "tools", "limit", "timeout"})


def _refuse(message: str, **context: Any) -> AgentError:
    return AgentError("JOB", message, context or None)


def _copy_names(names: Any, what: str) -> dict[str, Any]:
    if not isinstance(names, Mapping):
        raise TypeError(f"{what} must be a mapping of names")
    copied = dict(names)
    for key in copied:
        if not isinstance(key, str) or not key:
            raise TypeError(f"{what} must be keyed by non-empty strings, got {preview(key)}")
    return copied


class AgentRegistry:
    """Holds providers and tools by name and builds a fresh agent for each job.

    Each build gets a fresh `ToolManager` with the job's tools and a fresh conversation (a new id
    every time) seeded with the job's messages, in a conversation manager backed by the
    registry's `store` when there is one. The mappings given are copied.
    """

    __slots__ = ("_providers", "_store", "_tools")

    def __init__(
        self,
        *,
        providers: Mapping[str, ProviderInterface],
        tools: Mapping[str, ToolInterface] | None = None,
        store: ConversationStoreInterface | None = None,
    ) -> None:
        self._providers: dict[str, ProviderInterface] = _copy_names(providers, "providers")
        self._tools: dict[str, ToolInterface] = _copy_names(tools or {}, "tools")
        self._store = store

    @property
    def store(self) -> ConversationStoreInterface | None:
        """The store every built agent's conversation manager is backed by, or `None`."""
        return self._store

    def provider(self, name: str) -> ProviderInterface:
        """Finds a provider by name; an unknown name raises `LookupError`
        (`unknown provider: <name>`)."""
        found = self._providers.get(name) if isinstance(name, str) else None
        if found is None:
            raise LookupError(f"unknown provider: {name}")
        return found

    def tool(self, name: str) -> ToolInterface:
        """Finds a tool by name; an unknown name raises `LookupError` (`unknown tool: <name>`)."""
        found = self._tools.get(name) if isinstance(name, str) else None
        if found is None:
            raise LookupError(f"unknown tool: {name}")
        return found

    def providers(self) -> list[str]:
        """Lists the provider names, in the order they were given."""
        return list(self._providers)

    def tools(self) -> list[str]:
        """Lists the tool names, in the order they were given."""
        return list(self._tools)

    def build(
        self,
        job: AgentJobInput,
        *,
        signal: AbortSignal | None = None,
        budget: AgentBudgetInterface | None = None,
    ) -> Agent:
        """Builds a fresh agent for a job: its provider, its tools, its instructions and limits,
        and a new conversation seeded with its messages; with `budget`, the budget admits each
        of its model requests.

        An unknown provider or tool raises `LookupError`; a job that is not well formed raises
        `AgentError` (`JOB`), and a malformed message `AgentError` (`MESSAGE`). Nothing is built
        on failure.
        """
        if not isinstance(job, Mapping):
            raise _refuse(f"a job must be a mapping, not {type(job).__name__}")
        stray = [key for key in job if key not in _JOB_KEYS]
        if stray:
            raise _refuse(f"a job has no field {preview(stray[0])}")
        provider = self.provider(job.get("provider"))
        names = job.get("tools", [])
        if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
            raise _refuse("'tools' must be a list of tool names")
        tools = ToolManager()
        tools.add([self.tool(name) for name in names])
        messages = job.get("messages")
        if not isinstance(messages, list | tuple):
            raise _refuse("'messages' must be a list of messages")
        system = job.get("system")
        if system is not None and not isinstance(system, str):
            raise _refuse("'system' must be a string")
        conversations = ConversationManager(self._store)
        conversation = conversations.add()
        seed: list[MessageInput] = list(messages)
        conversation.add(seed)
        try:
            return Agent(
                provider,
                system=system,
                tools=tools,
                conversations=conversations,
                limit=job.get("limit", DEFAULT_AGENT_LIMIT),
                timeout=job.get("timeout"),
                signal=signal,
                budget=budget,
            )
        except (TypeError, ValueError) as error:
            raise _refuse(str(error)) from None

    def __repr__(self) -> str:
        return f"AgentRegistry(providers={list(self._providers)!r}, tools={list(self._tools)!r})"
