"""The names the MCP bridge's signatures use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

if TYPE_CHECKING:
    from mcp.client import Client, ClientSession
    from mcp.client.stdio import StdioServerParameters

    from orkestrel.mcp.event_store import StoredEvent

McpTransport: TypeAlias = Literal["stdio", "http"]
"""Represents the wire a served `ToolManager` speaks: stdio, or streamable HTTP."""

# A string, so that it names the 2.x `Client` without importing it on the 1.x line.
McpSource: TypeAlias = "Client | ClientSession | StdioServerParameters | str | Sequence[str]"
"""Represents where `from_mcp` finds a remote server: a connected `Client` (2.x) or
`ClientSession` (the caller keeps it open), stdio launch parameters, an `http(s)://` URL, a
command line, or an argument vector."""


class EventStoreInterface(Protocol):
    """Represents where a streamable HTTP server keeps the events it sends, for clients that
    reconnect with `Last-Event-ID`: this process's memory (`EventStore`), or a database every
    server on it shares (`DurableEventStore`, `durable`)."""

    durable: bool

    async def keep(self, session: str, stream: str, message: Any, size: int) -> int:
        """Keeps `message` as the next event of `session`'s `stream`; gives its number."""
        ...

    async def lookup(self, session: str, number: int) -> StoredEvent | None:
        """The kept event `number` of `session`, or `None`."""
        ...

    async def following(self, session: str, number: int) -> list[tuple[int, StoredEvent]]:
        """The kept events of the stream of `session`'s event `number` that came after it."""
        ...

    async def mark_resumed(self, session: str, number: int) -> None:
        """Records that a client reconnected from `session`'s event `number`."""
        ...

    async def was_resumed(self, session: str, stream: str) -> bool:
        """Whether a client reconnected from an event of `session`'s `stream`."""
        ...

    def forget(self, session: str) -> None:
        """Drops what the store keeps only for the open session `session` (it ended)."""
        ...
