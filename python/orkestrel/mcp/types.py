"""The names the MCP bridge's signatures use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

McpTransport: TypeAlias = Literal["stdio", "http"]
"""Represents the wire a served `ToolManager` speaks: stdio, or streamable HTTP."""

if TYPE_CHECKING:
    from mcp.client import Client, ClientSession
    from mcp.client.stdio import StdioServerParameters

    McpSource: TypeAlias = Client | ClientSession | StdioServerParameters | str | Sequence[str]
else:
    # The 1.x SDK line has no `Client`; the alias is only for type checkers.
    McpSource: TypeAlias = Any
"""Represents where `from_mcp` finds a remote server: a connected `Client` (2.x) or
`ClientSession` (the caller keeps it open), stdio launch parameters, an `http(s)://` URL, a
command line, or an argument vector."""
