"""Defaults of the MCP bridge."""

from __future__ import annotations

from typing import Any

DEFAULT_HOST = "127.0.0.1"
"""The interface the HTTP transport binds when none is given: loopback only."""

DEFAULT_PORT = 8000
"""The TCP port the HTTP transport binds when none is given (`0` picks a free one)."""

DEFAULT_PATH = "/mcp"
"""The URL path the streamable HTTP endpoint answers on."""

DEFAULT_SERVER_NAME = "orkestrel"
"""The server name announced to MCP clients."""

EMPTY_INPUT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
"""The input schema listed for a tool that declares no parameters; copied before use."""

MAX_LIST_PAGES = 1000
"""How many `tools/list` pages `from_mcp` follows before deciding the server never ends."""

SHUTDOWN_GRACE_SECONDS = 3.0
"""How long the HTTP transport waits for open connections when it is asked to stop."""

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest stdio message read whole; a longer one is answered with a parse error."""

DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""The largest tool call result the server sends, in bytes of JSON (the value is written twice,
as text and as structured content); a larger one is answered with an error naming the cap."""

DEFAULT_SESSION_IDLE_SECONDS = 300.0
"""How long an HTTP session may go without a request before it is closed and forgotten."""

DEFAULT_MAX_SESSIONS = 1000
"""How many HTTP sessions may be open at once; past it, opening another answers 503."""

DEFAULT_HEADER_TIMEOUT_SECONDS = 10.0
"""How long an HTTP request's headers may take to arrive, from its first byte (or from the
connection, or the previous response); the connection is closed past it."""

DEFAULT_KEEPALIVE_SECONDS = 5.0
"""How long an HTTP connection may sit idle between requests before it is closed."""

DEFAULT_MAX_CONNECTIONS = 1000
"""How many HTTP connections may be open at once (fewer when the open-file limit is lower)."""

LISTING_POLL_SECONDS = 1.0
"""How often `serve` compares the served listing with what each client was last shown."""

TOKEN_ENV = "ORKESTREL_TOKEN"
"""The environment variable `orkestrel serve` reads its HTTP bearer token from."""

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The `Host` names a loopback-bound HTTP server answers to."""

INPUT_REQUIRED = "input_required"
"""The `resultType` of a 2026-era call result that asks the client for input before the call
can finish (an `InputRequiredResult`)."""

JWKS_FETCH_SECONDS = 10.0
"""How long fetching a JWKS URL may take before the token it was fetched for is refused."""

JWKS_REFRESH_SECONDS = 300.0
"""How long a JWKS read from a URL is kept before it is fetched again."""

JWKS_MAX_BYTES = 1024 * 1024
"""The largest JWKS read from a URL or a file; a larger one is refused unread past it."""

JWKS_KID_REFETCH_SECONDS = 30.0
"""How old a JWKS read from a URL must be before a token with a `kid` it lacks fetches it
again (the keys may have rotated); sooner, such a token is refused without a fetch."""

PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"
"""Where the protected resource metadata (RFC 9728) is served, with the MCP path after it."""

EVENTS_PER_STREAM = 1000
"""How many events of one HTTP response stream (a call's progress and answer, or a session's
GET stream) are kept for a client that reconnects with `Last-Event-ID`; older ones go first."""

EVENT_BYTES = 16 * 1024 * 1024
"""How many bytes of JSON all kept events may hold together, over every session; past it the
oldest events go first."""

EVENT_TTL_SECONDS = 300.0
"""How long a kept event can be replayed after it was sent."""

EVENTS_TABLE = "mcp_events"
"""The table that keeps the events of streamable HTTP sessions, with `--database` (or
`--durable-events`), in the database that keeps the workflow runs."""

EVENT_POLL_SECONDS = 0.1
"""How often a server that replays another server's stream looks for its next events, and a
server whose client dropped a call looks whether another server resumed it."""

RESUME_SECONDS = 30.0
"""How long a call whose client dropped the connection runs on, waiting for the client to
reconnect with `Last-Event-ID`, when that client was sent event ids (protocol 2025-11-25 or
later); it is cancelled when none comes."""

MAX_SUBSCRIPTIONS = 1000
"""How many resources one connection may subscribe to with `resources/subscribe`."""

MAX_URI = 4096
"""The longest resource URI `resources/subscribe` accepts."""

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
"""The MCP Tasks extension (SEP-2663): a `tools/call` may be answered with a task to poll."""

TASKS_TABLE = "mcp_tasks"
"""The table that keeps the MCP tasks, in the database that keeps the workflow runs."""

LIVE_TASK_STATUSES = ("working", "input_required")
"""The task statuses that are not final."""

DEFAULT_TASK_TTL_MS = 3_600_000
"""How long a task and its result are kept from its creation when the server is not told."""

MAX_TASK_TTL_MS = 7 * 24 * 3_600_000
"""The longest a task may be kept: a week."""

DEFAULT_MAX_LIVE_TASKS = 16
"""How many tasks one client (one set of credentials) may have working at once."""

TASK_POLL_INTERVAL_MS = 500
"""The polling interval a task suggests to its client."""

TASK_BEAT_SECONDS = 1.0
"""How often the server running a task says it is alive and checks for its cancellation."""

TASK_STALE_MS = 15_000
"""How long a working task that cannot be resumed may go without its runner's beat before it
reads as failed."""

TASK_ADOPT_MS = 35_000
"""How long a working task that can be resumed may go without its runner's beat before another
server takes it over: past the workflow lease its dead runner held (30 s), so the resumed run
gets the lease."""

RESUMABLE_TOOLS = ("workflow",)
"""The tools whose task another server resumes when its own dies: the workflow tool, whose run
continues from its checkpoints, so no completed step runs again."""

MAX_INPUT_RESPONSE_BYTES = 1024 * 1024
"""The most bytes of JSON the answers of one `tasks/update` may hold."""

APPS_EXTENSION = "io.modelcontextprotocol/ui"
"""The MCP Apps extension (SEP-1865): a tool's `_meta.ui.resourceUri` names a `ui://` HTML
resource a host renders inline, in a sandboxed iframe."""

APP_MIME_TYPE = "text/html;profile=mcp-app"
"""The media type of an MCP App's `ui://` resource; a host renders no other."""
