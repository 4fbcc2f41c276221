"""The commands of the `orkestrel` command line: each one's module and one-line summary."""

from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "infer": ("orkestrel.cli.infer", "infer the JSON Schema of JSON or JSON Lines files"),
    "serve": ("orkestrel.cli.serve", "serve the toolbox to MCP clients"),
    "tools": ("orkestrel.cli.tools", "list, describe and call the toolbox's tools from a terminal"),
}
"""Command name to (module with its `register`, summary for `orkestrel --help`)."""

HEALTH_PATH = "/healthz"
"""The liveness route `orkestrel serve --transport http` answers without a token."""

READY_PATH = "/readyz"
"""The readiness route `orkestrel serve --transport http` answers without a token."""
