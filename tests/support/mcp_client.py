"""The installed MCP SDK's own client, behind one small surface for both SDK lines, so the
bridge's suite runs unchanged under mcp 1.x and 2.x. Everything it answers is wire JSON
(camelCase dicts), which both lines agree on."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import anyio
import pytest

MAJOR = int(metadata.version("mcp").split(".")[0])
"""The major version of the installed SDK."""

needs_v2 = pytest.mark.skipif(MAJOR < 2, reason="needs the 2.x SDK line")
"""Marks a test of a 2.x-only SDK feature (protocol eras, the `Client` class)."""

MODES = ["auto", "legacy"] if MAJOR >= 2 else ["legacy"]
"""The protocol eras the installed client can speak: 2.x also speaks the 2026 one."""


Elicitation = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Answers an `elicitation/create` request: given its wire params (`message`,
`requestedSchema`), gives the wire result (`action`, and `content` on accept)."""


def types_module() -> Any:
    """The installed line's protocol types module (`mcp_types` on 2.x, `mcp.types` on 1.x)."""
    return importlib.import_module("mcp_types" if MAJOR >= 2 else "mcp.types")


def wire(value: Any) -> Any:
    """An SDK model (or a list of them) as wire JSON."""
    if isinstance(value, list):
        return [wire(item) for item in value]
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return value


def stdio(command: str, args: list[str], env: dict[str, str] | None = None) -> Any:
    """Stdio launch parameters for a server command, with this process's environment (the
    SDK's default keeps only a few variables, which would drop `PYTHONPATH`)."""
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=command, args=args, env={**os.environ, **(env or {})})


@dataclass
class Session:
    """A connected client of the installed SDK line."""

    client: Any
    notifications: list[dict[str, Any]] = field(default_factory=list)
    initialized: dict[str, Any] = field(default_factory=dict)

    async def list_tools(self, refresh: bool = False) -> list[dict[str, Any]]:
        """The server's listing, as wire tool entries (`refresh` skips the 2.x client's
        response cache)."""
        if MAJOR >= 2 and refresh:
            listed = await self.client.list_tools(cache_mode="refresh")
        else:
            listed = await self.client.list_tools()
        return [wire(tool) for tool in listed.tools]

    def server_info(self) -> dict[str, Any]:
        """The server's announced name and version, as wire JSON."""
        if MAJOR >= 2:
            return wire(self.client.server_info)  # type: ignore[no-any-return]
        return dict(self.initialized["serverInfo"])

    def instructions(self) -> str | None:
        """The server's announced instructions."""
        if MAJOR >= 2:
            return self.client.instructions  # type: ignore[no-any-return]
        return self.initialized.get("instructions")

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        """Calls a tool; gives the wire result. Cancelling the caller cancels the request
        on the server (the 1.x client leaves announcing that to its user)."""
        if MAJOR < 2:
            return await self._call_v1(name, arguments, progress)
        if progress is None:
            return wire(await self.client.call_tool(name, arguments))  # type: ignore[no-any-return]
        answer = await self.client.call_tool(name, arguments, progress_callback=progress)
        return wire(answer)  # type: ignore[no-any-return]

    async def _call_v1(self, name: str, arguments: Any, progress: Any) -> dict[str, Any]:
        from mcp import types

        ident = self.client._request_id
        try:
            return wire(  # type: ignore[no-any-return]
                await self.client.call_tool(name, arguments, progress_callback=progress)
            )
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                cancel = types.CancelledNotification(
                    params=types.CancelledNotificationParams(requestId=ident)
                )
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await self.client.send_notification(types.ClientNotification(cancel))
            raise

    def capabilities(self) -> dict[str, Any]:
        """The server's announced capabilities, as wire JSON."""
        if MAJOR >= 2:
            return wire(self.client.server_capabilities)  # type: ignore[no-any-return]
        return wire(self.client.get_server_capabilities())  # type: ignore[no-any-return]


@dataclass
class Tap:
    """Watches the HTTP of a connected client: records each `Mcp-Session-Id` the server
    answers with, and the status and body of each refused request under its HTTP method, its
    JSON-RPC method (a POST) and `resume` (a `Last-Event-ID` one). With `session`, each
    request naming a session names that one instead, as a client holding a stolen id does."""

    session: str | None = None
    sessions: list[str] = field(default_factory=list)
    refused: dict[str, set[tuple[int, bytes]]] = field(default_factory=dict)

    async def request(self, request: Any) -> None:
        if self.session is not None and "mcp-session-id" in request.headers:
            request.headers["mcp-session-id"] = self.session

    async def response(self, response: Any) -> None:
        session = response.headers.get("mcp-session-id")
        if session is not None and session not in self.sessions:
            self.sessions.append(session)
        if response.status_code < 400:
            return
        await response.aread()
        request = response.request
        kind = request.method
        if kind == "POST":
            kind += " " + str(json.loads(request.content).get("method", "answer"))
        if "last-event-id" in request.headers:
            kind += " resume"
        self.refused.setdefault(kind, set()).add((response.status_code, response.content))


def _http_client(headers: dict[str, str] | None, tap: Tap | None = None) -> Any:
    name = "httpx2" if MAJOR >= 2 else "httpx"
    hooks = {} if tap is None else {"request": [tap.request], "response": [tap.response]}
    module = importlib.import_module(name)
    return module.AsyncClient(headers=headers or {}, timeout=30, event_hooks=hooks)


@asynccontextmanager
async def connect(
    target: Any,
    *,
    mode: str | None = None,
    headers: dict[str, str] | None = None,
    elicitation: Elicitation | None = None,
    tap: Tap | None = None,
) -> AsyncIterator[Session]:
    """Connects the installed SDK's client to `target`: an in-process server, stdio launch
    parameters, or an `http(s)://` URL (sent with `headers`, its HTTP watched by `tap` when
    given). Notifications the server sends
    (log entries, list changes) are collected on the session. With `elicitation`, the client
    declares that it renders form elicitations and answers them with it (on the 2026 era the
    2.x client does so for a call's `InputRequiredResult` and retries the call). A lone error
    crossing the SDK's task groups is re-raised as itself."""
    try:
        async with _connect(
            target, mode=mode, headers=headers, elicitation=elicitation, tap=tap
        ) as session:
            yield session
    except BaseExceptionGroup as group:
        error: BaseException = group
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        raise error from error.__cause__


@asynccontextmanager
async def _connect(
    target: Any,
    *,
    mode: str | None = None,
    headers: dict[str, str] | None = None,
    elicitation: Elicitation | None = None,
    tap: Tap | None = None,
) -> AsyncIterator[Session]:
    session = Session(None)
    answers: dict[str, Any] = {}
    if elicitation is not None:

        async def on_elicit(context: Any, params: Any) -> Any:
            answer = await elicitation(wire(params))
            return types_module().ElicitResult.model_validate(answer)

        answers["elicitation_callback"] = on_elicit

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            return
        notification = wire(getattr(message, "root", message))
        if notification.get("method") == "notifications/message":
            return  # collected by `on_log`, which both lines call
        session.notifications.append(notification)

    async def on_log(params: Any) -> None:
        session.notifications.append({"method": "notifications/message", "params": wire(params)})

    async with AsyncExitStack() as stack:
        if MAJOR >= 2:
            from mcp.client import Client
            from mcp.client.streamable_http import streamable_http_client

            if isinstance(target, str) and (headers or tap is not None):
                http = await stack.enter_async_context(_http_client(headers, tap))
                target = streamable_http_client(target, http_client=http)
            options: dict[str, Any] = {
                "message_handler": on_message,
                "logging_callback": on_log,
                # The 2026 era sends log entries only to requests that ask for them.
                "log_level": "debug",
                **answers,
            }
            if mode is not None:
                options["mode"] = mode
            session.client = await stack.enter_async_context(Client(target, **options))
        else:
            from mcp.client.session import ClientSession

            if isinstance(target, str):
                from mcp.client.streamable_http import streamable_http_client

                http = await stack.enter_async_context(_http_client(headers, tap))
                streams = await stack.enter_async_context(
                    streamable_http_client(target, http_client=http)
                )
            elif hasattr(target, "command"):
                from mcp.client.stdio import stdio_client

                streams = await stack.enter_async_context(stdio_client(target))
            else:
                from mcp.shared.memory import create_client_server_memory_streams

                client_streams, server_streams = await stack.enter_async_context(
                    create_client_server_memory_streams()
                )
                group = await stack.enter_async_context(anyio.create_task_group())
                stack.callback(group.cancel_scope.cancel)
                group.start_soon(
                    lambda: target.run(*server_streams, target.create_initialization_options())
                )
                streams = client_streams
            if streams is not None:
                session.client = await stack.enter_async_context(
                    ClientSession(
                        streams[0],
                        streams[1],
                        message_handler=on_message,
                        logging_callback=on_log,
                        **answers,
                    )
                )
                session.initialized = wire(await session.client.initialize())
        yield session


def raw_session(session: Session) -> Any:
    """The SDK's `ClientSession` under a connected client (2.x wraps it in a `Client`)."""
    return session.client.session if MAJOR >= 2 else session.client


async def until(check: Callable[[], bool], seconds: float = 30) -> None:
    """Waits until `check()` is true, for at most `seconds`."""
    with anyio.fail_after(seconds):
        while True:
            if check():
                return
            await anyio.sleep(0.02)


def text(result: dict[str, Any]) -> str:
    """The one text block of a wire call result."""
    (block,) = result["content"]
    assert block["type"] == "text"
    return str(block["text"])
