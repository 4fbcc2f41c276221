"""The constructor-free way to build agents, registries, conversations, stores and providers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Unpack

from orkestrel.agent.agent import Agent
from orkestrel.agent.conversation import Conversation
from orkestrel.agent.manager import ConversationManager
from orkestrel.agent.registry import AgentRegistry
from orkestrel.agent.stores.database import (
    CONVERSATIONS_COLUMNS,
    CONVERSATIONS_TABLE,
    DatabaseConversationStore,
)
from orkestrel.agent.stores.memory import MemoryConversationStore
from orkestrel.agent.types import (
    AgentInterface,
    AgentOptions,
    AnthropicProviderOptions,
    ConversationInterface,
    ConversationManagerInterface,
    ConversationStoreInterface,
    OpenAIProviderOptions,
    ProviderInterface,
)
from orkestrel.database import DriverInterface, create_database
from orkestrel.tool import ToolInterface

if TYPE_CHECKING:
    from orkestrel.agent.providers.anthropic import AnthropicProvider
    from orkestrel.agent.providers.openai import OpenAICompatibleProvider


def create_agent(provider: ProviderInterface, **options: Unpack[AgentOptions]) -> AgentInterface:
    """Creates a live agent over a provider, returned as an `AgentInterface`: a `context`, or the
    `system`, `tools` and `conversations` to build one from, a turn `limit`, a `timeout` in
    milliseconds per run, a `signal` that stops every run, a `budget` that admits each model
    request, the tool calls one turn may run (`max_calls`) and the characters the conversation
    may hold (`max_context`).

    Each option defaults as `Agent`'s does.
    """
    return Agent(provider, **options)


def create_agent_registry(
    *,
    providers: Mapping[str, ProviderInterface],
    tools: Mapping[str, ToolInterface] | None = None,
    store: ConversationStoreInterface | None = None,
) -> AgentRegistry:
    """Creates a registry that builds a fresh agent per job from named providers and tools,
    backing every built agent's conversations with `store` when one is given.
    """
    return AgentRegistry(providers=providers, tools=tools, store=store)


def create_conversation(id: str | None = None) -> ConversationInterface:
    """Creates an empty conversation, its id a random hex UUID unless given."""
    return Conversation(id)


def create_conversation_manager(
    store: ConversationStoreInterface | None = None,
) -> ConversationManagerInterface:
    """Creates an empty conversation registry, durable through `store` when one is given."""
    return ConversationManager(store)


def create_memory_conversation_store() -> ConversationStoreInterface:
    """Creates a conversation snapshot store that lives as long as the process."""
    return MemoryConversationStore()


def create_database_conversation_store(
    driver: DriverInterface | None = None,
) -> DatabaseConversationStore:
    """Creates a conversation snapshot store over one table of the database layer, in memory
    unless a driver (a SQLite file, PostgreSQL) is given.
    """
    database = create_database(tables={CONVERSATIONS_TABLE: CONVERSATIONS_COLUMNS}, driver=driver)
    return DatabaseConversationStore(database.table(CONVERSATIONS_TABLE), database)


def create_openai_provider(
    **options: Unpack[OpenAIProviderOptions],
) -> OpenAICompatibleProvider:
    """Creates a provider for an OpenAI-compatible Chat Completions API (OpenAI, vLLM, llama.cpp,
    Ollama, LM Studio); it needs `httpx` (the `openai` extra). `think_body` is merged into the
    body of a call made with `think=True`; the other options are `HTTPProviderOptions`.

    `model` is required; every other option defaults as `OpenAICompatibleProvider`'s does.
    """
    # Deferred: httpx is an optional dependency (the `openai` extra).
    from orkestrel.agent.providers.openai import OpenAICompatibleProvider

    return OpenAICompatibleProvider(**options)


def create_anthropic_provider(
    **options: Unpack[AnthropicProviderOptions],
) -> AnthropicProvider:
    """Creates a provider for the Anthropic Messages API; it needs `httpx` (the `anthropic`
    extra). `max_tokens` is sent with every request and `thinking` (a token budget) turns on
    extended thinking for a call made with `think=True`; the other options are
    `HTTPProviderOptions`.

    `model` is required; every other option defaults as `AnthropicProvider`'s does.
    """
    # Deferred: httpx is an optional dependency (the `anthropic` extra).
    from orkestrel.agent.providers.anthropic import AnthropicProvider

    return AnthropicProvider(**options)
