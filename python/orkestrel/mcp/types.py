"""The names the MCP bridge's signatures use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from mcp.client import Client, ClientSession
    from mcp.client.stdio import StdioServerParameters

McpTransport: TypeAlias = Literal["stdio", "http"]
"""Represents the wire a served `ToolManager` speaks: stdio, or streamable HTTP."""

# A string, so that it names the 2.x `Client` without importing it on the 1.x line.
McpSource: TypeAlias = "Client | ClientSession | StdioServerParameters | str | Sequence[str]"
"""Represents where `from_mcp` finds a remote server: a connected `Client` (2.x) or
`ClientSession` (the caller keeps it open), stdio launch parameters, an `http(s)://` URL, a
command line, or an argument vector."""
