"""The MCP bridge: serve a `ToolManager` as an MCP server, or wrap a remote server's tools.

Needs the `mcp` extra (`pip install 'orkestrel[mcp]'`), which brings the official MCP SDK; both
its 1.x line (1.30 and later) and its 2.x line are supported.
"""

from orkestrel.mcp.requirements import require_sdk

require_sdk()

from orkestrel.mcp.constants import (  # noqa: E402
    DEFAULT_HOST,
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_PATH,
    DEFAULT_PORT,
    DEFAULT_SERVER_NAME,
    DEFAULT_SESSION_IDLE_SECONDS,
    TOKEN_ENV,
)
from orkestrel.mcp.context import McpToolContext  # noqa: E402
from orkestrel.mcp.errors import IconError, RemoteToolError, ToolNameCollisionError  # noqa: E402
from orkestrel.mcp.event_store import EventStore  # noqa: E402
from orkestrel.mcp.factories import create_server, from_mcp  # noqa: E402
from orkestrel.mcp.helpers import mcp_to_value, result_to_mcp, tool_to_mcp  # noqa: E402
from orkestrel.mcp.http import RouteAccess  # noqa: E402
from orkestrel.mcp.jwt_verifier import JwtAuth  # noqa: E402
from orkestrel.mcp.transports import serve  # noqa: E402
from orkestrel.mcp.types import McpSource, McpTransport  # noqa: E402

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_ANSWER_BYTES",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_PATH",
    "DEFAULT_PORT",
    "DEFAULT_SERVER_NAME",
    "DEFAULT_SESSION_IDLE_SECONDS",
    "TOKEN_ENV",
    "EventStore",
    "IconError",
    "JwtAuth",
    "McpSource",
    "McpToolContext",
    "McpTransport",
    "RemoteToolError",
    "RouteAccess",
    "ToolNameCollisionError",
    "create_server",
    "from_mcp",
    "mcp_to_value",
    "result_to_mcp",
    "serve",
    "tool_to_mcp",
]
