"""Run a `ToolManager` as an MCP server over stdio or streamable HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import socket
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import Any

import anyio
import uvicorn
from anyio.abc import TaskStatus
from anyio.lowlevel import current_token
from starlette.routing import BaseRoute

from orkestrel import __version__
from orkestrel.mcp import sdk
from orkestrel.mcp.connections import LISTEN_BACKLOG, GuardedConfig
from orkestrel.mcp.constants import (
    DEFAULT_HEADER_TIMEOUT_SECONDS,
    DEFAULT_HOST,
    DEFAULT_KEEPALIVE_SECONDS,
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_PATH,
    DEFAULT_PORT,
    DEFAULT_SERVER_NAME,
    DEFAULT_SESSION_IDLE_SECONDS,
    LISTING_POLL_SECONDS,
    RESUME_SECONDS,
    SHUTDOWN_GRACE_SECONDS,
    TOKEN_ENV,
)
from orkestrel.mcp.factories import create_server
from orkestrel.mcp.features import MAX_COMPLETIONS
from orkestrel.mcp.helpers import raise_alone
from orkestrel.mcp.http import RouteAccess, create_http_app, default_hosts, is_loopback
from orkestrel.mcp.jwt_verifier import JwtAuth
from orkestrel.mcp.listing import ListingWatch
from orkestrel.mcp.stdio import FilteredLines, LineWriter, claimed_stdio
from orkestrel.mcp.tasks import TaskBroker
from orkestrel.mcp.types import EventStoreInterface, McpTransport
from orkestrel.tool import ToolManagerInterface


async def serve(
    manager: ToolManagerInterface,
    transport: McpTransport = "stdio",
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    path: str = DEFAULT_PATH,
    name: str = DEFAULT_SERVER_NAME,
    version: str = __version__,
    instructions: str | None = None,
    timeout: float | None = None,
    token: str | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    session_idle: float | None = DEFAULT_SESSION_IDLE_SECONDS,
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    max_answer_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT_SECONDS,
    keepalive_timeout: float = DEFAULT_KEEPALIVE_SECONDS,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    routes: Iterable[BaseRoute] = (),
    access: Sequence[RouteAccess] = (),
    auth: JwtAuth | None = None,
    stateless: bool = False,
    events: EventStoreInterface | None = None,
    resume_seconds: float = RESUME_SECONDS,
    strict_schemas: bool = False,
    tasks: TaskBroker | None = None,
    icons: Sequence[Mapping[str, Any]] = (),
    completion_values: int = MAX_COMPLETIONS,
    task_status: TaskStatus[str] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serves a `ToolManager` as an MCP server until the client disconnects (stdio) or the task
    is cancelled (HTTP, which then closes its connections gracefully).

    `"stdio"` speaks on the process's stdin and stdout. `"http"` serves streamable HTTP at
    `http://host:port/path`, binding loopback by default; `port=0` picks a free port. Started
    with `TaskGroup.start`, it reports `"stdio"` or the HTTP URL once it accepts connections.
    HTTP needs the asyncio backend. `timeout` (seconds) bounds each tool call, and
    `max_answer_bytes` each call's result, and `strict_schemas` lists input schemas in OpenAI's
    strict subset; `icons` are announced in the server's info and on what it lists, and a
    completion answers at most `completion_values` values (see `create_server`).

    Over HTTP, `token` requires `Authorization: Bearer <token>` on every request (401
    otherwise); binding an address other than loopback without a token raises `ValueError`.
    Requests whose `Host` is not this server's (loopback names, the bound address, and
    `allowed_hosts`) or whose `Origin` is a foreign page get 421 and 403. Sessions idle for
    `session_idle` seconds are closed, at most `max_sessions` are open at once, and `routes`
    are extra Starlette routes served beside `path` (the terminal routes and answering page,
    say) behind the same checks; `access` lets a browser reach some of them without the
    bearer header (see `RouteAccess`).

    A connection whose request headers take longer than `header_timeout` seconds, or that
    sits idle between requests for `keepalive_timeout` seconds, is closed, and at most
    `max_connections` are open at once (fewer when the open-file limit is lower): past it, a
    new connection evicts the one that has waited longest for its headers, or is closed when
    every open one is busy.

    `auth` checks bearer JWTs instead of a static token (see `JwtAuth`): a token needs its
    read scope to list and call read-only tools, and its write scope to call any other, and
    the protected resource metadata is served at `/.well-known/oauth-protected-resource`.
    A `stateless` server keeps no session: every POST is served alone (no `initialize` needed
    first) and answered with JSON, with no server-to-client requests (elicitation) nor list
    change notifications.

    A stateful server keeps the events each session sends in `events` (a fresh `EventStore`,
    in memory, when `None`; a `DurableEventStore` on a database every server shares), so a
    client that lost its connection reconnects with `Last-Event-ID` and gets the events it
    missed, with a durable store on any server of that database. A call whose client was sent
    event ids (protocol 2025-11-25 and later) and dropped the connection runs on for
    `resume_seconds` waiting for that reconnection, and is cancelled when none comes.

    `tasks` answers the calls of its tools with MCP tasks for the clients that declared the
    Tasks extension (see `TaskBroker`); its runs last as long as the server.
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"transport must be 'stdio' or 'http', got {transport!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")
    for option, seconds in (
        ("header_timeout", header_timeout),
        ("keepalive_timeout", keepalive_timeout),
    ):
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not 0 < seconds < math.inf
        ):
            raise ValueError(f"{option} must be a positive number of seconds, got {seconds!r}")
    if (
        isinstance(max_connections, bool)
        or not isinstance(max_connections, int)
        or max_connections < 1
    ):
        raise ValueError(f"max_connections must be a positive integer, got {max_connections!r}")
    async with _running(tasks):
        watch = ListingWatch(manager)
        server = create_server(
            manager,
            name=name,
            version=version,
            instructions=instructions,
            timeout=timeout,
            watch=watch,
            max_answer_bytes=max_answer_bytes,
            strict_schemas=strict_schemas,
            tasks=tasks,
            icons=icons,
            completion_values=completion_values,
        )
        if transport == "stdio":
            try:
                await _serve_stdio(server, watch, task_status)
            except BaseExceptionGroup as failure:
                raise_alone(failure)
            return
        if token and auth is not None:
            raise ValueError("pass a static token or JWT auth, not both")
        if not token and auth is None and not is_loopback(host):
            raise ValueError(
                f"refusing to serve HTTP on {host} without a token: anyone who can reach it could "
                f"call every tool; pass a token (--token or ${TOKEN_ENV}) or bind 127.0.0.1"
            )
        app = create_http_app(
            server,
            path=path,
            token=token,
            hosts=[*default_hosts(host), *allowed_hosts],
            origins=allowed_origins,
            idle_timeout=session_idle,
            max_sessions=max_sessions,
            routes=routes,
            access=access,
            auth=auth,
            readonly=functools.partial(_readonly, manager),
            stateless=stateless,
            events=events,
            resume_seconds=resume_seconds,
        )
        if not isinstance(current_token().native_token, asyncio.AbstractEventLoop):
            raise RuntimeError("the MCP HTTP transport runs on asyncio only (uvicorn)")
        listener = _bind(host, port)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(_poll, watch)
                config = GuardedConfig(
                    app,
                    header_timeout=header_timeout,
                    keepalive_timeout=keepalive_timeout,
                    max_connections=max_connections,
                    log_config=None,
                    log_level="warning",
                    access_log=False,
                    lifespan="on",
                    timeout_graceful_shutdown=int(SHUTDOWN_GRACE_SECONDS),
                )
                await _serve_http(config, listener, path, task_status)
                group.cancel_scope.cancel()
        except BaseExceptionGroup as failure:
            raise_alone(failure)
        finally:
            listener.close()


@contextlib.asynccontextmanager
async def _running(tasks: TaskBroker | None) -> AsyncIterator[None]:
    if tasks is None:
        yield
        return
    async with tasks.running():
        yield


def _readonly(manager: ToolManagerInterface, name: str) -> bool:
    tool = manager.tool(name)
    hints = getattr(tool, "annotations", None) if tool is not None else None
    return isinstance(hints, Mapping) and hints.get("readOnlyHint") is True


async def _poll(watch: ListingWatch) -> None:
    while True:
        await anyio.sleep(LISTING_POLL_SECONDS)
        await watch.check()


async def _serve_stdio(server: Any, watch: ListingWatch, task_status: TaskStatus[str]) -> None:
    with claimed_stdio() as (wire_in, wire_out):
        writer = LineWriter(wire_out)
        async with sdk.stdio(FilteredLines(wire_in, writer), writer) as (read, write):
            task_status.started("stdio")
            async with anyio.create_task_group() as group:
                group.start_soon(_poll, watch)
                await server.run(read, write, server.create_initialization_options())
                group.cancel_scope.cancel()


class _Uvicorn(uvicorn.Server):
    """A uvicorn server that leaves signals to whoever runs it: uvicorn's own handlers would
    re-raise SIGTERM after shutting down, so the process would die of it instead of exiting."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def _serve_http(
    config: uvicorn.Config, listener: socket.socket, path: str, task_status: TaskStatus[str]
) -> None:
    web = _Uvicorn(config)
    finished = anyio.Event()

    async def run() -> None:
        try:
            with anyio.CancelScope(shield=True):
                await web.serve(sockets=[listener])
        finally:
            finished.set()

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        task_status.started(_url(listener, path))
        try:
            await finished.wait()
        finally:
            web.should_exit = True
            with anyio.CancelScope(shield=True):
                with anyio.move_on_after(SHUTDOWN_GRACE_SECONDS * 2):
                    await finished.wait()
                # Connections that outlive the grace period are dropped rather than waited on.
                web.force_exit = True
                await finished.wait()


def _bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(LISTEN_BACKLOG)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener


def _url(listener: socket.socket, path: str) -> str:
    address: tuple[Any, ...] = listener.getsockname()
    host = f"[{address[0]}]" if listener.family == socket.AF_INET6 else str(address[0])
    return f"http://{host}:{address[1]}{path}"
