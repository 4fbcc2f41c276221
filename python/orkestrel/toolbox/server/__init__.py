"""The terminal routes: a terminal manager on the wire, as an SSE stream and an answer POST
over one `:name`-templated path, plus an answering page for a browser."""

from orkestrel.toolbox.server.constants import (
    TERMINAL_BODY_LIMIT,
    TERMINAL_KEEPALIVE_MS,
    TERMINAL_ROUTES_PATH,
    TERMINAL_STREAM_BUFFER,
)
from orkestrel.toolbox.server.factories import (
    create_ask_app_html,
    create_terminal_app,
    create_terminal_page_routes,
    create_terminal_routes,
    starlette_routes,
)
from orkestrel.toolbox.server.types import (
    TerminalHandler,
    TerminalRoute,
    TerminalRouteContext,
    TerminalRouteMethod,
    TerminalRoutesOptions,
    TerminalToken,
)

__all__ = [
    "TERMINAL_BODY_LIMIT",
    "TERMINAL_KEEPALIVE_MS",
    "TERMINAL_ROUTES_PATH",
    "TERMINAL_STREAM_BUFFER",
    "TerminalHandler",
    "TerminalRoute",
    "TerminalRouteContext",
    "TerminalRouteMethod",
    "TerminalRoutesOptions",
    "TerminalToken",
    "create_ask_app_html",
    "create_terminal_app",
    "create_terminal_page_routes",
    "create_terminal_routes",
    "starlette_routes",
]
