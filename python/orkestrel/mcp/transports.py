"""Run a `ToolManager` as an MCP server over stdio or streamable HTTP."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Sequence
from typing import Any

import anyio
from anyio.abc import TaskStatus
from anyio.lowlevel import current_token
from mcp.server import Server
from mcp.server.stdio import stdio_server
from starlette.routing import BaseRoute

from orkestrel import __version__
from orkestrel.mcp.constants import (
    DEFAULT_HOST,
    DEFAULT_PATH,
    DEFAULT_PORT,
    DEFAULT_SERVER_NAME,
    SHUTDOWN_GRACE_SECONDS,
)
from orkestrel.mcp.factories import create_server
from orkestrel.mcp.types import McpTransport
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
    routes: Sequence[BaseRoute] = (),
    task_status: TaskStatus[str] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serves a `ToolManager` as an MCP server until the client disconnects (stdio) or the task
    is cancelled or the process is interrupted (HTTP).

    `"stdio"` speaks on the process's stdin and stdout. `"http"` serves streamable HTTP at
    `http://host:port/path`, binding loopback by default; `port=0` picks a free port. Started
    with `TaskGroup.start`, it reports `"stdio"` or the HTTP URL once it accepts connections.
    HTTP needs the asyncio backend. `timeout` (seconds) bounds each tool call. `routes` are
    Starlette routes served beside the MCP endpoint over HTTP (the terminal routes, say).
    """
    if transport not in ("stdio", "http"):
        raise ValueError(f"transport must be 'stdio' or 'http', got {transport!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")
    server = create_server(
        manager, name=name, version=version, instructions=instructions, timeout=timeout
    )
    if transport == "stdio":
        async with stdio_server() as (read_stream, write_stream):
            task_status.started("stdio")
            await server.run(read_stream, write_stream, server.create_initialization_options())
        return
    await _serve_http(server, host, port, path, task_status, routes)


async def _serve_http(
    server: Server[Any],
    host: str,
    port: int,
    path: str,
    task_status: TaskStatus[str],
    routes: Sequence[BaseRoute] = (),
) -> None:
    if not isinstance(current_token().native_token, asyncio.AbstractEventLoop):
        raise RuntimeError("the MCP HTTP transport runs on asyncio only (uvicorn)")
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=path, host=host)
    app.router.routes.extend(routes)
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=int(SHUTDOWN_GRACE_SECONDS),
    )
    web = uvicorn.Server(config)
    listener = _bind(host, port)
    finished = anyio.Event()

    async def run() -> None:
        try:
            with anyio.CancelScope(shield=True):
                await web.serve(sockets=[listener])
        finally:
            listener.close()
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
        listener.listen(128)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener


def _url(listener: socket.socket, path: str) -> str:
    address: tuple[Any, ...] = listener.getsockname()
    host = f"[{address[0]}]" if listener.family == socket.AF_INET6 else str(address[0])
    return f"http://{host}:{address[1]}{path}"
