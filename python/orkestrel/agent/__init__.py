"""Agents: messages, providers, conversations and their stores, and a bounded loop that lets a
model call the tools of a `ToolManager`.

    provider = ScriptedProvider(["Hello."])           # or create_openai_provider(model=...)
    agent = create_agent(provider, system="Be brief.")
    agent.context.messages.add({"role": "user", "content": "Hi"})
    result = await agent.generate()                   # AgentResult(content="Hello.", ...)

The real providers live in `orkestrel.agent.providers` and need httpx; everything else here is
pure Python.
"""

from orkestrel.agent.agent import CANCELLED_ANSWER, Agent
from orkestrel.agent.budget import AgentBudget
from orkestrel.agent.constants import (
    ABORT_GRACE,
    AGENT_MAX_AGENTS,
    AGENT_MAX_CALLS,
    AGENT_MAX_CONTEXT,
    AGENT_MAX_REQUESTS,
    ANTHROPIC_BASE_URL,
    ANTHROPIC_MAX_TOKENS,
    ANTHROPIC_VERSION,
    DEFAULT_AGENT_LIMIT,
    OPENAI_BASE_URL,
    PROVIDER_DEADLINE,
    PROVIDER_RESPONSE_LIMIT,
    PROVIDER_RETRIES,
    PROVIDER_RETRY_WAIT,
    PROVIDER_TIMEOUT,
    THINK_CLOSE,
    THINK_OPEN,
    TOOL_RESULT_UNENCODABLE,
)
from orkestrel.agent.context import AgentContext
from orkestrel.agent.conversation import Conversation
from orkestrel.agent.errors import (
    AGENT_ERROR_CODES,
    PROVIDER_ERROR_CODES,
    AgentError,
    AgentErrorCode,
    ProviderAbortError,
    ProviderError,
    ProviderErrorCode,
    is_agent_error,
    is_provider_error,
)
from orkestrel.agent.factories import (
    create_agent,
    create_agent_registry,
    create_anthropic_provider,
    create_conversation,
    create_conversation_manager,
    create_database_conversation_store,
    create_memory_conversation_store,
    create_openai_provider,
)
from orkestrel.agent.helpers import agent_result_to_json
from orkestrel.agent.manager import ConversationManager
from orkestrel.agent.registry import AgentRegistry
from orkestrel.agent.scripted import ScriptedCall, ScriptedProvider, ScriptedStream, ScriptedTurn
from orkestrel.agent.stores.database import (
    CONVERSATIONS_COLUMNS,
    CONVERSATIONS_TABLE,
    DatabaseConversationStore,
)
from orkestrel.agent.stores.memory import MemoryConversationStore
from orkestrel.agent.think import ThinkSplitter
from orkestrel.agent.types import (
    AgentBudgetInterface,
    AgentContextInterface,
    AgentInterface,
    AgentJobInput,
    AgentRegistryInterface,
    AgentResult,
    AgentStatus,
    ConversationInterface,
    ConversationManagerInterface,
    ConversationSection,
    ConversationSnapshot,
    ConversationStoreInterface,
    HTTPProviderOptions,
    Message,
    MessageInput,
    MessageRole,
    ProviderDelta,
    ProviderDeltaType,
    ProviderInterface,
    ProviderResult,
    ProviderStream,
    StreamingProviderInterface,
    TokenUsage,
)
from orkestrel.agent.validators import is_conversation_snapshot, parse_conversation_snapshot

__all__ = [
    "ABORT_GRACE",
    "AGENT_ERROR_CODES",
    "AGENT_MAX_AGENTS",
    "AGENT_MAX_CALLS",
    "AGENT_MAX_CONTEXT",
    "AGENT_MAX_REQUESTS",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MAX_TOKENS",
    "ANTHROPIC_VERSION",
    "CANCELLED_ANSWER",
    "CONVERSATIONS_COLUMNS",
    "CONVERSATIONS_TABLE",
    "DEFAULT_AGENT_LIMIT",
    "OPENAI_BASE_URL",
    "PROVIDER_DEADLINE",
    "PROVIDER_ERROR_CODES",
    "PROVIDER_RESPONSE_LIMIT",
    "PROVIDER_RETRIES",
    "PROVIDER_RETRY_WAIT",
    "PROVIDER_TIMEOUT",
    "THINK_CLOSE",
    "THINK_OPEN",
    "TOOL_RESULT_UNENCODABLE",
    "Agent",
    "AgentBudget",
    "AgentBudgetInterface",
    "AgentContext",
    "AgentContextInterface",
    "AgentError",
    "AgentErrorCode",
    "AgentInterface",
    "AgentJobInput",
    "AgentRegistry",
    "AgentRegistryInterface",
    "AgentResult",
    "AgentStatus",
    "Conversation",
    "ConversationInterface",
    "ConversationManager",
    "ConversationManagerInterface",
    "ConversationSection",
    "ConversationSnapshot",
    "ConversationStoreInterface",
    "DatabaseConversationStore",
    "HTTPProviderOptions",
    "MemoryConversationStore",
    "Message",
    "MessageInput",
    "MessageRole",
    "ProviderAbortError",
    "ProviderDelta",
    "ProviderDeltaType",
    "ProviderError",
    "ProviderErrorCode",
    "ProviderInterface",
    "ProviderResult",
    "ProviderStream",
    "ScriptedCall",
    "ScriptedProvider",
    "ScriptedStream",
    "ScriptedTurn",
    "StreamingProviderInterface",
    "ThinkSplitter",
    "TokenUsage",
    "agent_result_to_json",
    "create_agent",
    "create_agent_registry",
    "create_anthropic_provider",
    "create_conversation",
    "create_conversation_manager",
    "create_database_conversation_store",
    "create_memory_conversation_store",
    "create_openai_provider",
    "is_agent_error",
    "is_conversation_snapshot",
    "is_provider_error",
    "parse_conversation_snapshot",
]
