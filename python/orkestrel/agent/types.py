"""The plain data an agent exchanges, and the interfaces of its providers, stores and classes."""

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NotRequired,
    Protocol,
    Required,
    TypedDict,
    overload,
)

from orkestrel.abort import AbortSignal
from orkestrel.tool import ToolCall, ToolDefinition, ToolManagerInterface

if TYPE_CHECKING:
    import httpx

MessageRole = Literal["system", "user", "assistant", "tool"]
"""Names who speaks a message: the instructions, the user, the model, or a tool's answer."""

AgentStatus = Literal["idle", "running", "done", "error"]
"""Says where an agent is: never run, running now, its last run settled, or its last run
raised."""

ProviderDeltaType = Literal["content", "thinking"]
"""Says whether a streamed delta is answer text or reasoning text."""


class MessageInput(TypedDict):
    """Represents a message before a conversation stores it: everything but the `id`.

    `calls` (assistant messages only) lists the tool calls the model made; `call` (tool messages
    only) is the id of the call the message answers; `error` marks a tool message that carries a
    failure text; `images` (user messages) lists image URLs, `data:` URLs included.
    """

    role: MessageRole
    content: str
    calls: NotRequired[list[ToolCall]]
    call: NotRequired[str]
    error: NotRequired[bool]
    images: NotRequired[list[str]]


class Message(MessageInput):
    """Represents a stored message: a `MessageInput` with the id its conversation minted."""

    id: str


class TokenUsage(TypedDict):
    """Represents the tokens a backend reported: the prompt, the completion, and their total."""

    prompt: int | float
    completion: int | float
    total: int | float


class ProviderResult(TypedDict):
    """Represents one provider turn: the clean answer text, and the reasoning, tool calls and
    usage when there were any.
    """

    content: str
    thinking: NotRequired[str]
    tools: NotRequired[list[ToolCall]]
    usage: NotRequired[TokenUsage]


class ProviderDelta(TypedDict):
    """Represents one streamed piece of a provider turn: answer text or reasoning text."""

    type: ProviderDeltaType
    text: str


class ProviderStream(Protocol):
    """Represents one streaming provider turn: an async iterator of deltas whose `result` is set
    once iteration ends normally.
    """

    def __aiter__(self) -> AsyncIterator[ProviderDelta]: ...
    @property
    def result(self) -> ProviderResult: ...
    async def aclose(self) -> None: ...


class ProviderInterface(Protocol):
    """Represents a model backend that answers a conversation with one turn."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    async def generate(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> ProviderResult: ...


class StreamingProviderInterface(ProviderInterface, Protocol):
    """Represents a provider that can also stream a turn delta by delta."""

    def stream(
        self,
        messages: Sequence[Message],
        signal: AbortSignal,
        tools: Sequence[ToolDefinition] | None = None,
        *,
        think: bool | None = None,
    ) -> ProviderStream: ...


class ConversationSection(TypedDict):
    """Represents a compacted span of a conversation; always empty in this port, kept for the
    snapshot's exact shape.
    """

    id: str
    summary: str


class ConversationSnapshot(TypedDict):
    """Represents a conversation at rest, as exact JSON: its id, its sections and its messages."""

    id: str
    sections: list[ConversationSection]
    messages: list[Message]


class ConversationInterface(Protocol):
    """Represents one live conversation: an ordered list of immutable messages under an id."""

    @property
    def id(self) -> str: ...
    @property
    def count(self) -> int: ...
    @overload
    def add(self, input: MessageInput) -> Message: ...
    @overload
    def add(self, input: Sequence[MessageInput]) -> list[Message]: ...
    def message(self, id: str) -> Message | None: ...
    def messages(self) -> list[Message]: ...
    def remove(self, id: str | Sequence[str]) -> bool: ...
    def clear(self) -> None: ...
    def view(self) -> list[Message]: ...
    def snapshot(self) -> ConversationSnapshot: ...


class ConversationStoreInterface(Protocol):
    """Represents where conversation snapshots rest, keyed by conversation id."""

    async def get(self, id: str) -> ConversationSnapshot | None: ...
    async def set(self, snapshot: ConversationSnapshot) -> None: ...
    async def delete(self, id: str) -> None: ...


class ConversationManagerInterface(Protocol):
    """Represents a registry of conversations by id with one active selection and optional
    durability through a store.
    """

    @property
    def count(self) -> int: ...
    @property
    def active(self) -> ConversationInterface | None: ...
    def add(
        self, id: str | None = None, snapshot: ConversationSnapshot | None = None
    ) -> ConversationInterface: ...
    def switch(self, id: str) -> ConversationInterface | None: ...
    def conversation(self, id: str) -> ConversationInterface | None: ...
    def conversations(self) -> list[ConversationInterface]: ...
    async def open(self, id: str) -> ConversationInterface | None: ...
    async def save(self, id: str) -> bool: ...
    def remove(self, id: str | Sequence[str]) -> bool: ...
    def clear(self) -> None: ...


class AgentContextInterface(Protocol):
    """Represents what an agent works with: its instructions, its tools and its conversations."""

    @property
    def system(self) -> str | None: ...
    @property
    def tools(self) -> ToolManagerInterface: ...
    @property
    def conversations(self) -> ConversationManagerInterface: ...
    @property
    def messages(self) -> ConversationInterface: ...
    def build(self) -> list[Message]: ...


@dataclass(frozen=True, slots=True)
class AgentResult:
    """Holds how a run settled: the final answer, whether it was cut short, and the reasoning and
    token usage gathered across its turns.
    """

    content: str
    partial: bool = False
    thinking: str | None = None
    usage: TokenUsage | None = None


class AgentInterface(Protocol):
    """Represents a live agent: a provider, a context, and a bounded loop that runs one request at
    a time.
    """

    @property
    def id(self) -> str: ...
    @property
    def status(self) -> AgentStatus: ...
    @property
    def context(self) -> AgentContextInterface: ...
    async def generate(
        self,
        *,
        signal: AbortSignal | None = None,
        think: bool | None = None,
        progress: Callable[[int, int, str], Awaitable[None]] | None = None,
    ) -> AgentResult: ...
    def abort(self, reason: object = None) -> None: ...


class AgentBudgetInterface(Protocol):
    """Represents what one top-level call may spend across its delegation tree: each sub-agent
    and each model request is admitted first, and a spent cap raises."""

    def admit_agent(self) -> None: ...
    def admit_request(self) -> None: ...


class AgentJobInput(TypedDict):
    """Represents a serializable request to build an agent: a provider key, the seed messages,
    and optionally instructions, tool keys, a turn limit and a timeout in milliseconds.
    """

    provider: str
    messages: list[MessageInput]
    system: NotRequired[str]
    tools: NotRequired[list[str]]
    limit: NotRequired[int]
    timeout: NotRequired[int | float]


class AgentRegistryInterface(Protocol):
    """Represents where agents are built from jobs: named providers, named tools, and an optional
    conversation store; a `budget` given to `build` admits every model request of the agent.
    """

    def build(
        self,
        job: AgentJobInput,
        *,
        signal: AbortSignal | None = None,
        budget: AgentBudgetInterface | None = None,
    ) -> AgentInterface: ...


class HTTPProviderOptions(TypedDict, total=False):
    """The options both HTTP providers and their factories take: `client` an `httpx.AsyncClient`
    the caller owns (without one the provider makes its own and `aclose()` closes it), `id` the
    trace label, `body` added to every request (a `None` value removes a key), `streaming=False`
    for single non-streamed calls, `retries` of a 429 after a `Retry-After` of at most `wait`
    seconds, a response `limit` in bytes, the read `timeout` and the total `deadline` of one
    request in seconds."""

    client: "httpx.AsyncClient | None"
    id: str | None
    body: Mapping[str, Any] | None
    streaming: bool
    retries: int
    wait: float
    limit: int
    timeout: float
    deadline: float


class AgentOptions(TypedDict, total=False):
    """What `create_agent` takes beside the provider: the arguments of `Agent`, whose defaults
    apply."""

    id: str | None
    context: AgentContextInterface | None
    system: str | None
    tools: ToolManagerInterface | None
    conversations: ConversationManagerInterface | None
    limit: int
    timeout: int | float | None
    signal: AbortSignal | None
    budget: AgentBudgetInterface | None
    max_calls: int
    max_context: int


class OpenAIProviderOptions(HTTPProviderOptions, total=False):
    """What `create_openai_provider` takes: the `HTTPProviderOptions` and the arguments of
    `OpenAICompatibleProvider`, whose defaults apply."""

    model: Required[str]
    base_url: str
    api_key: str | None
    name: str
    headers: Mapping[str, str] | None
    think_body: Mapping[str, Any] | None


class AnthropicProviderOptions(HTTPProviderOptions, total=False):
    """What `create_anthropic_provider` takes: the `HTTPProviderOptions` and the arguments of
    `AnthropicProvider`, whose defaults apply."""

    model: Required[str]
    api_key: str | None
    base_url: str
    name: str
    headers: Mapping[str, str] | None
    version: str
    max_tokens: int
    thinking: int | None
