"""The MCP bridge: serve a `ToolManager` as an MCP server, or wrap a remote server's tools.

Needs the `mcp` extra (`pip install 'orkestrel[mcp]'`), which brings the official MCP SDK 2.x.
"""

from orkestrel.mcp.requirements import require_sdk

require_sdk()

from orkestrel.mcp.constants import (  # noqa: E402
    DEFAULT_HOST,
    DEFAULT_PATH,
    DEFAULT_PORT,
    DEFAULT_SERVER_NAME,
)
from orkestrel.mcp.errors import RemoteToolError, ToolNameCollisionError  # noqa: E402
from orkestrel.mcp.factories import create_server, from_mcp  # noqa: E402
from orkestrel.mcp.helpers import mcp_to_value, result_to_mcp, tool_to_mcp  # noqa: E402
from orkestrel.mcp.transports import serve  # noqa: E402
from orkestrel.mcp.types import McpSource, McpTransport  # noqa: E402

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PATH",
    "DEFAULT_PORT",
    "DEFAULT_SERVER_NAME",
    "McpSource",
    "McpTransport",
    "RemoteToolError",
    "ToolNameCollisionError",
    "create_server",
    "from_mcp",
    "mcp_to_value",
    "result_to_mcp",
    "serve",
    "tool_to_mcp",
]
