"""The defaults of the terminal routes."""

from __future__ import annotations

from typing import Final

TERMINAL_ROUTES_PATH: Final = "/terminals/:name"
"""Holds the default `:name`-templated path `create_terminal_routes` mounts its GET (SSE) and
POST (answer) routes under, `/terminals/:name`."""

TERMINAL_KEEPALIVE_MS: Final = 15_000
"""Holds the default SSE keepalive interval `create_terminal_routes` arms per open connection,
`15_000` ms: a `:` comment frame a conforming SSE parser ignores, keeping intermediary proxies
from timing out an otherwise idle stream."""

TERMINAL_BODY_LIMIT: Final = 1_048_576
"""Holds the default cap on an answer's POST body, `1_048_576` bytes; a longer body is refused
with `413` before it is parsed."""

TERMINAL_STREAM_BUFFER: Final = 1_048_576
"""Holds the default cap on the bytes one SSE stream holds for a consumer that has not read
them yet, `1_048_576`; a consumer further behind is dropped (it reconnects for a replay)."""

TERMINAL_PAGE_FILES: Final[dict[str, str]] = {
    "": "text/html; charset=utf-8",
    "form.js": "text/javascript; charset=utf-8",
    "page.js": "text/javascript; charset=utf-8",
    "page.css": "text/css; charset=utf-8",
}
"""Holds the files of the answering page, by path under `<path>/`, with their media types."""

APP_FILES: Final = ("page.css", "form.js", "app.js")
"""Holds the files the ask MCP App inlines into `page/app.html`: its style sheet, the form
renderer it shares with the answering page, and its host bridge."""
