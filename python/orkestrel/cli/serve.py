"""`orkestrel serve`: the toolbox served to MCP clients over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import anyio

from orkestrel.cli.agent import add_agent_arguments
from orkestrel.cli.arguments import positive_int, positive_seconds
from orkestrel.cli.ask import Ask, AskSetupError, add_ask_arguments, open_ask, page_url
from orkestrel.cli.constants import COMMANDS
from orkestrel.cli.events import add_event_arguments, open_event_store
from orkestrel.cli.health import health_routes
from orkestrel.cli.options import add_toolbox_arguments, shared_of, toolbox_of
from orkestrel.cli.shared import SharedState
from orkestrel.cli.tasks import add_task_arguments, open_task_broker
from orkestrel.cli.toolbox import ToolboxSetupError
from orkestrel.database import DATABASE_THREAD_LIMIT, database_fair_limiter
from orkestrel.telemetry import NOT_INSTALLED, otlp_export
from orkestrel.tool import ToolManager

USAGE = 2
FAILURE = 1

TOKEN_ENV = "ORKESTREL_TOKEN"
"""The environment variable the HTTP bearer token is read from when `--token` is not given."""

# These mirror `orkestrel.mcp.constants`, which cannot be imported without the MCP SDK, and
# the parser must work (to say how to get the SDK) without it.
DEFAULT_SESSION_IDLE_SECONDS = 300.0
DEFAULT_MAX_SESSIONS = 1000
DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024
EVENTS_PER_STREAM = 1000
EVENT_BYTES = 16 * 1024 * 1024
EVENT_TTL_SECONDS = 300.0
RESUME_SECONDS = 30.0
COMPLETION_VALUES = 100

DEFAULT_SESSION_DATABASE_THREADS = 8
"""The most units of database work one client session runs in worker threads at once."""

DEFAULT_READY_QUEUE = 128
"""The units of database work that may wait for a worker thread before `/readyz` answers 503."""
DEFAULT_HEADER_TIMEOUT_SECONDS = 10.0
DEFAULT_KEEPALIVE_SECONDS = 5.0
DEFAULT_MAX_CONNECTIONS = 1000

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(commands: Any) -> argparse.ArgumentParser:
    """Adds the `serve` command and its options to the `orkestrel` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "serve",
        help=COMMANDS["serve"][1],
        description="Serve the toolbox to MCP clients: over stdio (for a client that starts "
        "this command) or over streamable HTTP on loopback.",
    )
    add_toolbox_arguments(parser)
    add_agent_arguments(parser)
    add_ask_arguments(parser)
    parser.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio for a client that starts this command, http to listen (default: stdio)",
    )
    parser.add_argument(
        "--host", default=None, help=f"HTTP interface to bind (default: {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help=f"HTTP port, 0 for a free one (default: {DEFAULT_PORT})",
    )
    add_serve_arguments(parser)
    add_task_arguments(parser)
    parser.set_defaults(run=run)
    return parser


def _completion_values(text: str) -> int:
    value = positive_int(text)
    if value > COMPLETION_VALUES:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 1 to {COMPLETION_VALUES} (the protocol's cap), "
            f"got {text!r}"
        )
    return value


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the serving options: the call timeout, the answer cap, and the HTTP security and
    session bounds."""
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=None,
        metavar="SECONDS",
        help="fail any tool call that runs longer than this (default: no limit)",
    )
    parser.add_argument(
        "--max-answer-bytes",
        type=positive_int,
        default=DEFAULT_MAX_ANSWER_BYTES,
        metavar="N",
        help="answer a tool call whose result is over N bytes of JSON with an error naming "
        f"this cap (default: {DEFAULT_MAX_ANSWER_BYTES})",
    )
    parser.add_argument(
        "--completion-values",
        type=_completion_values,
        default=COMPLETION_VALUES,
        metavar="N",
        help="the most values one completion answers, with the true total and hasMore "
        f"(1 to {COMPLETION_VALUES}; default: {COMPLETION_VALUES})",
    )
    parser.add_argument(
        "--icon",
        action="append",
        default=[],
        metavar="SRC[,sizes=WxH][,mimeType=M][,theme=T]",
        help="announce this icon (an https: URL or a data:image/... URI) in the server's info "
        "and on its tools, templates and prompts (repeatable)",
    )
    database = parser.add_argument_group("database work")
    database.add_argument(
        "--database-threads",
        type=positive_int,
        default=DATABASE_THREAD_LIMIT,
        metavar="N",
        help="units of database work run in worker threads at once "
        f"(default: {DATABASE_THREAD_LIMIT})",
    )
    database.add_argument(
        "--session-database-threads",
        type=positive_int,
        default=DEFAULT_SESSION_DATABASE_THREADS,
        metavar="N",
        help="of those, the most one client session runs at once; the waiting work of "
        f"different sessions takes turns (default: {DEFAULT_SESSION_DATABASE_THREADS})",
    )
    database.add_argument(
        "--ready-queue",
        type=positive_int,
        default=DEFAULT_READY_QUEUE,
        metavar="N",
        help="over HTTP, /readyz answers 503 (saturated) while more units of database work "
        f"than this wait for a worker thread (default: {DEFAULT_READY_QUEUE})",
    )
    http = parser.add_argument_group("HTTP")
    http.add_argument(
        "--token",
        default=None,
        help=f"require 'Authorization: Bearer TOKEN' on every request (default: ${TOKEN_ENV}); "
        "needed to bind an address other than loopback",
    )
    http.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="also answer requests whose Host header is HOST (repeatable; * for any, behind "
        "a proxy that checks it)",
    )
    http.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept browser requests from ORIGIN, e.g. https://app.example (repeatable)",
    )
    auth = parser.add_argument_group("HTTP authorization (JWT access tokens)")
    auth.add_argument(
        "--jwks",
        default=None,
        metavar="URL|FILE",
        help="check bearer JWTs against this JWKS (an https URL or a file) instead of --token",
    )
    auth.add_argument("--issuer", default=None, help="the iss a JWT must name (needs --jwks)")
    auth.add_argument(
        "--resource",
        default=None,
        metavar="URL",
        help="this server's resource URL, the aud a JWT must name (default: the URL a request "
        "reaches /mcp at)",
    )
    auth.add_argument(
        "--authorization-server",
        action="append",
        default=[],
        metavar="URL",
        help="advertised in the protected resource metadata (repeatable; default: --issuer)",
    )
    auth.add_argument(
        "--jwt-algorithm",
        action="append",
        default=[],
        metavar="ALG",
        help="a signature algorithm a JWT may use (repeatable; default: RS256, ES256, EdDSA)",
    )
    auth.add_argument(
        "--read-scope",
        default="mcp:read",
        help="the scope that lists and calls read-only tools (default: mcp:read)",
    )
    auth.add_argument(
        "--write-scope",
        default="mcp:write",
        help="the scope that calls every tool (default: mcp:write)",
    )
    http.add_argument(
        "--stateless",
        action="store_true",
        help="keep no session: each POST is served alone and answered with JSON "
        "(for 2025-era clients behind a load balancer; no elicitation)",
    )
    http.add_argument(
        "--events-per-stream",
        type=positive_int,
        default=EVENTS_PER_STREAM,
        metavar="N",
        help="events kept per response stream for a client that reconnects with "
        f"Last-Event-ID (default: {EVENTS_PER_STREAM})",
    )
    http.add_argument(
        "--event-bytes",
        type=positive_int,
        default=EVENT_BYTES,
        metavar="BYTES",
        help=f"bytes of events kept over all sessions (default: {EVENT_BYTES})",
    )
    http.add_argument(
        "--event-ttl",
        type=positive_seconds,
        default=EVENT_TTL_SECONDS,
        metavar="SECONDS",
        help=f"how long a kept event can be replayed (default: {EVENT_TTL_SECONDS:g})",
    )
    add_event_arguments(http)
    http.add_argument(
        "--resume-seconds",
        type=positive_seconds,
        default=RESUME_SECONDS,
        metavar="SECONDS",
        help="how long a call whose client dropped the connection waits for it to reconnect "
        f"with Last-Event-ID before it is cancelled (default: {RESUME_SECONDS:g})",
    )
    http.add_argument(
        "--session-idle",
        type=positive_seconds,
        default=DEFAULT_SESSION_IDLE_SECONDS,
        metavar="SECONDS",
        help="close a session after this long without a request "
        f"(default: {DEFAULT_SESSION_IDLE_SECONDS:g})",
    )
    http.add_argument(
        "--max-sessions",
        type=positive_int,
        default=DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=f"open sessions at most; past it new ones get 503 (default: {DEFAULT_MAX_SESSIONS})",
    )
    http.add_argument(
        "--header-timeout",
        type=positive_seconds,
        default=DEFAULT_HEADER_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help="close a connection whose request headers take longer than this "
        f"(default: {DEFAULT_HEADER_TIMEOUT_SECONDS:g})",
    )
    http.add_argument(
        "--keepalive-timeout",
        type=positive_seconds,
        default=DEFAULT_KEEPALIVE_SECONDS,
        metavar="SECONDS",
        help="close a connection idle this long between requests "
        f"(default: {DEFAULT_KEEPALIVE_SECONDS:g})",
    )
    http.add_argument(
        "--max-connections",
        type=positive_int,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="open connections at most (fewer when the open-file limit is lower); past it a new "
        "one evicts the longest wait for headers, or is closed when all are busy "
        f"(default: {DEFAULT_MAX_CONNECTIONS})",
    )


RouteFactory = Callable[[argparse.Namespace, ToolManager], Iterable[Any]]
"""Builds extra Starlette routes that `serve --transport http` mounts beside `/mcp`, from the
parsed options and the served toolbox; they sit behind the same token, `Host` and `Origin`
checks."""


def route_factories() -> list[RouteFactory]:
    """Lists the route factories `orkestrel serve` mounts over HTTP (add yours here)."""
    return []


def run(options: argparse.Namespace) -> int:
    """Runs a parsed `serve` command line and returns its exit status."""
    return anyio.run(run_serve, options)


async def run_serve(options: argparse.Namespace, *, stderr: TextIO | None = None) -> int:
    """Builds the toolbox and serves it until the client leaves (stdio) or the process is
    stopped (HTTP); returns the exit status.

    Over HTTP it prints `listening on <url>` to stderr once it accepts connections.
    """
    err = stderr or sys.stderr
    if getattr(options, "base_url", None) is not None and getattr(options, "agent", None) is None:
        print("orkestrel serve: --base-url needs --agent", file=err)
        return USAGE
    stray = _http_only(options)
    if stray:
        print(f"orkestrel serve: {', '.join(stray)} needs --transport http", file=err)
        return USAGE
    options.host = DEFAULT_HOST if options.host is None else options.host
    options.port = DEFAULT_PORT if options.port is None else options.port
    interactive = options.transport == "stdio" and sys.stdin.isatty()
    try:
        # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
        import orkestrel.mcp  # noqa: F401
    except ImportError as error:
        print(f"orkestrel serve: {error}", file=err)
        return FAILURE
    token = options.token if options.token is not None else os.environ.get(TOKEN_ENV) or None
    try:
        auth = _auth(options, token)
    except ValueError as error:
        print(f"orkestrel serve: {error}", file=err)
        return USAGE
    options.auth = auth
    try:
        options.icons = _icons(options.icon)
    except ValueError as error:
        print(f"orkestrel serve: {error}", file=err)
        return USAGE
    if (
        options.transport == "http"
        and token is None
        and auth is None
        and not _loopback(options.host)
    ):
        print(
            f"orkestrel serve: refusing to serve {options.host} without a token: anyone who "
            f"can reach it could call every tool (edit files, change databases); pass --token "
            f"or set {TOKEN_ENV}, or bind 127.0.0.1",
            file=err,
        )
        return USAGE
    try:
        ask = open_ask(options, token) if getattr(options, "ask", False) else None
    except AskSetupError as error:
        print(f"orkestrel serve: {error}", file=err)
        return USAGE
    try:
        with _database_threads(options), otlp_export() as unexported:
            if unexported == NOT_INSTALLED:
                print(f"orkestrel serve: {unexported}", file=err)
            async with shared_of(options) as shared, toolbox_of(options, err, shared) as manager:
                if ask is not None:
                    manager.add(ask.tool)
                await _until_stopped(_serve, manager, options, token, interactive, err, ask, shared)
    except ToolboxSetupError as error:
        print(f"orkestrel serve: {error}", file=err)
        return USAGE if error.usage else FAILURE
    except (OSError, ValueError) as error:
        print(f"orkestrel serve: {error}", file=err)
        return FAILURE
    return 0


@contextmanager
def _database_threads(options: argparse.Namespace) -> Iterator[None]:
    """Sizes the event loop's database threads as the options say and has them taken in turn
    by client sessions, for as long as the server runs."""
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp.elicitation import current_client

    fair = database_fair_limiter()
    before = (fair.limiter.total_tokens, fair.per_caller, fair.caller)
    fair.limiter.total_tokens = options.database_threads
    fair.per_caller = options.session_database_threads
    fair.caller = current_client
    try:
        yield
    finally:
        fair.limiter.total_tokens, fair.per_caller, fair.caller = before


def _auth(options: argparse.Namespace, token: str | None) -> Any:
    """The JWT auth the options describe, or `None` without `--jwks`; raises `ValueError` for
    options that do not make one."""
    if options.jwks is None:
        if options.issuer is not None:
            raise ValueError("--issuer needs --jwks")
        return None
    if options.token is not None:
        raise ValueError("--jwks and --token are two ways to check requests: pass one")
    if options.issuer is None:
        raise ValueError("--jwks needs --issuer, the iss its tokens must name")
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp import JwtAuth

    algorithms = tuple(options.jwt_algorithm) or JwtAuth.algorithms
    return JwtAuth(
        jwks=options.jwks,
        issuer=options.issuer,
        resource=options.resource,
        read_scope=options.read_scope,
        write_scope=options.write_scope,
        authorization_servers=tuple(options.authorization_server),
        algorithms=algorithms,
    )


def _icons(given: list[str]) -> list[dict[str, Any]]:
    """The icons `--icon` names, checked; raises `IconError` for the first unsafe one."""
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp.icons import check_icons, parse_icon

    return check_icons([parse_icon(text) for text in given], "--icon")


def _http_only(options: argparse.Namespace) -> list[str]:
    """The HTTP options a stdio command line gives, which stdio would ignore."""
    if options.transport == "http":
        return []
    given = {
        "--host": options.host is not None,
        "--port": options.port is not None,
        "--token": options.token is not None,
        "--allow-host": bool(options.allow_host),
        "--allow-origin": bool(options.allow_origin),
        "--jwks": options.jwks is not None,
        "--stateless": options.stateless,
        "--events-per-stream": options.events_per_stream != EVENTS_PER_STREAM,
        "--event-bytes": options.event_bytes != EVENT_BYTES,
        "--event-ttl": options.event_ttl != EVENT_TTL_SECONDS,
        "--resume-seconds": options.resume_seconds != RESUME_SECONDS,
        "--durable-events": options.durable_events,
    }
    return [flag for flag, present in given.items() if present]


def _loopback(host: str) -> bool:
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp.http import is_loopback

    return is_loopback(host)


async def _until_stopped(serve: Callable[..., Awaitable[None]], *args: Any) -> None:
    """Runs `serve` until it ends or the process gets SIGTERM or SIGINT, which stop it
    gracefully (open calls are cancelled, connections closed, cleanup run)."""
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp.helpers import raise_alone

    try:
        await _stoppable(serve, *args)
    except BaseExceptionGroup as group:
        raise_alone(group)


async def _stoppable(serve: Callable[..., Awaitable[None]], *args: Any) -> None:
    async with anyio.create_task_group() as group:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        if threading.current_thread() is threading.main_thread():
            group.start_soon(stop_on_signal)
        await serve(*args)
        group.cancel_scope.cancel()


async def _serve(
    manager: ToolManager,
    options: argparse.Namespace,
    token: str | None,
    interactive: bool,
    err: TextIO,
    ask: Ask | None = None,
    shared: SharedState | None = None,
) -> None:
    async with (
        open_task_broker(options, manager, shared) as tasks,
        open_event_store(options, shared) as events,
    ):
        await _serve_with(manager, options, token, interactive, err, ask, shared, tasks, events)


async def _serve_with(
    manager: ToolManager,
    options: argparse.Namespace,
    token: str | None,
    interactive: bool,
    err: TextIO,
    ask: Ask | None,
    shared: SharedState | None,
    tasks: Any,
    events: Any,
) -> None:
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp import RouteAccess, serve
    from orkestrel.mcp.helpers import raise_alone

    probes = health_routes(shared, options.ready_queue) if options.transport == "http" else []
    routes = [*(ask.routes if ask is not None else ()), *probes]
    routes += [route for make in route_factories() for route in make(options, manager)]
    access = [*(ask.access if ask is not None else ()), RouteAccess(routes=tuple(probes))]
    try:
        async with anyio.create_task_group() as group:
            closing = anyio.CancelScope()
            if ask is not None:
                group.start_soon(_close_on_exit, ask, closing)
            where = await group.start(
                functools.partial(
                    _until_closed,
                    closing,
                    functools.partial(
                        serve,
                        manager,
                        options.transport,
                        host=options.host,
                        port=options.port,
                        timeout=options.timeout,
                        token=None if options.auth is not None else token,
                        auth=options.auth,
                        stateless=options.stateless,
                        events=events,
                        resume_seconds=options.resume_seconds,
                        allowed_hosts=options.allow_host,
                        allowed_origins=options.allow_origin,
                        session_idle=options.session_idle,
                        max_sessions=options.max_sessions,
                        max_answer_bytes=options.max_answer_bytes,
                        header_timeout=options.header_timeout,
                        keepalive_timeout=options.keepalive_timeout,
                        max_connections=options.max_connections,
                        routes=routes,
                        access=access,
                        strict_schemas=True,
                        tasks=tasks,
                        icons=getattr(options, "icons", ()),
                        completion_values=options.completion_values,
                    ),
                )
            )
            if options.transport == "http":
                print(f"listening on {where}", file=err, flush=True)
                if ask is not None:
                    print(f"answer forms at {page_url(where, ask.terminal)}", file=err, flush=True)
            elif interactive:
                print(
                    f"orkestrel: serving {manager.count} tools over stdio to the MCP client "
                    "that runs this command; press Ctrl-D to stop",
                    file=err,
                    flush=True,
                )
    except BaseExceptionGroup as group:
        raise_alone(group)


async def _close_on_exit(ask: Ask, closing: anyio.CancelScope) -> None:
    # Destroying the terminals as the server stops ends their open streams, which would
    # otherwise hold the HTTP shutdown for its whole grace period.
    with closing:
        try:
            await anyio.sleep_forever()
        finally:
            ask.manager.destroy()


async def _until_closed(
    closing: anyio.CancelScope, run: Any, *, task_status: Any = anyio.TASK_STATUS_IGNORED
) -> None:
    try:
        await run(task_status=task_status)
    finally:
        closing.cancel()
