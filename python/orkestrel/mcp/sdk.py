"""The one place that knows which MCP SDK line is installed: 1.x (decorator-era low-level
server, `mcp.types`) or 2.x (constructor handlers, `mcp_types`).

Everything else in `orkestrel.mcp` speaks wire-shaped dicts (the protocol's camelCase JSON) and
goes through these functions, so both lines serve the same bytes. The 1.x branch is reached
through `Any`: type checkers see the installed line only, and this repository type-checks
against 2.x.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import anyio

from orkestrel.mcp.cancel_gate import REQUEST_CANCELLED, CancelGate, CancelledCall, GatedStream
from orkestrel.mcp.constants import INPUT_REQUIRED, TASKS_EXTENSION
from orkestrel.mcp.log_levels import LogLevels
from orkestrel.mcp.requirements import installed_major
from orkestrel.mcp.tasks import MODERN_VERSIONS, TaskBroker, TaskLimitError

MAJOR = installed_major()
"""The major version of the installed MCP SDK (1 or 2)."""

types: Any = importlib.import_module("mcp_types" if MAJOR >= 2 else "mcp.types")
"""The installed line's protocol types module."""

ListTools = Callable[["Request"], Awaitable[dict[str, Any]]]
Extra = Callable[["Request", dict[str, Any]], Awaitable[dict[str, Any]]]
"""A handler of one more request method (resources, prompts, completion): the request and its
wire params in, the wire result out; a `ValueError` is answered as invalid params."""

EXTRA_METHODS: dict[str, tuple[str, str, str]] = {
    "resources/list": ("PaginatedRequestParams", "ListResourcesResult", "ListResourcesRequest"),
    "resources/templates/list": (
        "PaginatedRequestParams",
        "ListResourceTemplatesResult",
        "ListResourceTemplatesRequest",
    ),
    "resources/read": ("ReadResourceRequestParams", "ReadResourceResult", "ReadResourceRequest"),
    "prompts/list": ("PaginatedRequestParams", "ListPromptsResult", "ListPromptsRequest"),
    "prompts/get": ("GetPromptRequestParams", "GetPromptResult", "GetPromptRequest"),
    "completion/complete": ("CompleteRequestParams", "CompleteResult", "CompleteRequest"),
    "resources/subscribe": ("SubscribeRequestParams", "EmptyResult", "SubscribeRequest"),
    "resources/unsubscribe": ("UnsubscribeRequestParams", "EmptyResult", "UnsubscribeRequest"),
}
"""Each method `build_server` can serve beyond tools: its params model, result model and (on
the 1.x line) request model, by name in the installed line's types module."""
CallTool = Callable[["Request", str, Any], Awaitable[dict[str, Any]]]
TaskMethod = Callable[[Any, Mapping[str, Any]], Awaitable[dict[str, Any]]]
"""A handler of a Tasks method: the SDK's request context and the raw params in, the wire
result out; a `ValueError` is answered as invalid params."""


@dataclass(frozen=True)
class Request:
    """Represents the inbound request a handler serves: its id, the connection's session
    (for notifications and requests back to the client), the client's progress token, if any,
    and the SDK's own request context and params (what elicitation reads: the protocol
    version, and a 2026-era retry's `input_responses` and `request_state`), and the server's
    `LogLevels` (the level each connection set)."""

    id: Any
    session: Any
    progress_token: Any = None
    context: Any = None
    params: Any = None
    levels: LogLevels | None = None


def model(kind: str, wire: Mapping[str, Any]) -> Any:
    """Builds the installed line's `types.<kind>` model from its wire shape."""
    return getattr(types, kind).model_validate(dict(wire))


def wire(value: Any) -> dict[str, Any]:
    """Dumps an SDK model to its wire shape (camelCase keys, no unset members)."""
    dumped: dict[str, Any] = value.model_dump(by_alias=True, mode="json", exclude_none=True)
    return dumped


INVALID_PARAMS = -32602
METHOD_NOT_FOUND = -32601

LEGACY_TASK_REFUSED = (
    "invalid params: task: this server runs tools/call as a task only on protocol 2026-07-28, "
    "for a client that declares the io.modelcontextprotocol/tasks extension; call again "
    "without task to get the result in the answer"
)
"""The error a 2025-11-25 `tools/call` with the experimental `task` parameter gets, on both SDK
lines, whether or not the server runs tasks."""

UNKNOWN_CURSOR = (
    "invalid params: this server never issued that cursor (it lists every tool on one page)"
)
"""The error a `tools/list` with a cursor gets: the listing has one page, so no cursor is one
this server gave out."""


def build_server(
    name: str,
    version: str,
    instructions: str | None,
    list_tools: ListTools,
    call_tool: CallTool,
    input_schema: Callable[[str], Mapping[str, Any] | None],
    extras: Mapping[str, Extra] | None = None,
    tasks: TaskBroker | None = None,
    icons: Sequence[Mapping[str, Any]] = (),
) -> Any:
    """Builds a low-level SDK server whose `tools/list` and `tools/call` answer with the wire
    dicts the given handlers return, and which advertises `tools.listChanged` and `logging`
    (`logging/setLevel` sets the least level a connection hears). `extras` serves more methods
    (keys of `EXTRA_METHODS`); the SDK advertises each served family. With `tasks` (the 2.x
    line), it declares the Tasks extension and serves `tasks/get`, `tasks/update` and
    `tasks/cancel` on 2026-07-28 requests. `icons` (wire `Icon` objects) go in the server's
    info, which `initialize` (and the 2026 era's discovery) answers."""
    announced = [model("Icon", icon) for icon in icons] or None
    if MAJOR >= 2:
        server = _server_v2(name, version, instructions, list_tools, call_tool, input_schema)
        if tasks is not None:
            _add_tasks(server, tasks)
    else:
        server = _server_v1(name, version, instructions, list_tools, call_tool)
    server.icons = announced
    for method, handler in (extras or {}).items():
        _add_extra(server, method, handler)
    return server


def _add_extra(server: Any, method: str, handler: Extra) -> None:
    params_kind, result_kind, request_kind = EXTRA_METHODS[method]
    if MAJOR >= 2:
        from mcp.shared.exceptions import MCPError

        async def on_v2(ctx: Any, params: Any) -> Any:
            try:
                answer = await handler(
                    Request(ctx.request_id, ctx.session, context=ctx), wire(params)
                )
            except ValueError as refused:
                raise MCPError(INVALID_PARAMS, str(refused)) from None
            return model(result_kind, answer)

        server.add_request_handler(method, getattr(types, params_kind), on_v2)
        return
    exceptions: Any = importlib.import_module("mcp.shared.exceptions")

    async def on_v1(req: Any) -> Any:
        ctx = server.request_context
        params = {} if req.params is None else wire(req.params)
        try:
            answer = await handler(Request(ctx.request_id, ctx.session, context=ctx), params)
        except ValueError as refused:
            error = types.ErrorData(code=INVALID_PARAMS, message=str(refused))
            raise exceptions.McpError(error) from None
        return types.ServerResult(model(result_kind, answer))

    server.request_handlers[getattr(types, request_kind)] = on_v1


def _server_v2(
    name: str,
    version: str,
    instructions: str | None,
    list_tools: ListTools,
    call_tool: CallTool,
    input_schema: Callable[[str], Mapping[str, Any] | None],
) -> Any:
    # Deferred for start-up time: a client never loads the SDK's server side.
    from mcp.server import Server
    from mcp.server.lowlevel.server import NotificationOptions

    class ListingServer(Server[Any]):
        def create_initialization_options(self, *args: Any, **kwargs: Any) -> Any:
            if not args and kwargs.get("notification_options") is None:
                kwargs["notification_options"] = NotificationOptions(
                    tools_changed=True, resources_changed=True
                )
            return super().create_initialization_options(*args, **kwargs)

    levels = LogLevels()

    def request(ctx: Any, params: Any = None) -> Request:
        return Request(ctx.request_id, ctx.session, context=ctx, params=params, levels=levels)

    async def on_set_level(ctx: Any, params: Any) -> Any:
        levels.set(connection(request(ctx)), params.level)
        return types.EmptyResult()

    async def on_list(ctx: Any, params: Any) -> Any:
        if getattr(params, "cursor", None) is not None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(INVALID_PARAMS, UNKNOWN_CURSOR)
        return model("ListToolsResult", await list_tools(request(ctx)))

    async def on_call(ctx: Any, params: Any) -> Any:
        # Deferred: an optional dependency's module, on the SDK's 2.x line only.
        from mcp.shared.exceptions import MCPError

        if getattr(params, "task", None) is not None and ctx.protocol_version not in (
            MODERN_VERSIONS
        ):
            raise MCPError(INVALID_PARAMS, LEGACY_TASK_REFUSED)
        try:
            answer = await call_tool(request(ctx, params), params.name, params.arguments)
        except TaskLimitError as refused:
            raise MCPError(INVALID_PARAMS, str(refused)) from None
        if answer.get("resultType") == "task":
            # A task handle (the Tasks extension's `CreateTaskResult`), not a tool result.
            return answer
        # The 2026 era answers a call that needs the client's input first with the request.
        kind = "InputRequiredResult" if answer.get("resultType") == INPUT_REQUIRED else None
        return model(kind or "CallToolResult", answer)

    server = ListingServer(
        name, version=version, instructions=instructions, get_tool_input_schema=input_schema
    )
    server.add_request_handler("tools/list", types.PaginatedRequestParams, on_list)
    server.add_request_handler("tools/call", types.CallToolRequestParams, on_call)
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, on_set_level)
    # The 2026 protocol era delivers list changes only on `subscriptions/listen` streams.
    # Deferred: an optional dependency's module, on the SDK's 2.x line only.
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

    bus = InMemorySubscriptionBus()
    listen = ListenHandler(bus)
    listening: Counter[str] = Counter()

    async def on_listen(ctx: Any, params: Any) -> Any:
        # Kept so that a change whose files are not known is told to every listened URI.
        uris = list(params.notifications.resource_subscriptions or ())
        listening.update(uris)
        try:
            return await listen(ctx, params)
        finally:
            listening.subtract(uris)
            for uri in uris:
                if listening[uri] <= 0:
                    del listening[uri]

    server.add_request_handler(
        "subscriptions/listen", types.SubscriptionsListenRequestParams, on_listen
    )
    server.orkestrel_bus = bus  # type: ignore[attr-defined]
    server.orkestrel_listening = listening  # type: ignore[attr-defined]
    return server


def declare_extension(server: Any, identifier: str) -> None:
    """Declares the extension `identifier` in a 2.x server's capabilities (the 1.x line
    declares none)."""
    extensions = getattr(server, "extensions", None)
    if isinstance(extensions, dict):
        extensions[identifier] = {}


def _add_tasks(server: Any, tasks: TaskBroker) -> None:
    """Declares the Tasks extension on a 2.x server and serves its three methods (on 2026-07-28
    requests; on earlier ones they are not found)."""
    # Deferred: an optional dependency's module, on the SDK's 2.x line only.
    from mcp.shared.exceptions import MCPError

    server.extensions[TASKS_EXTENSION] = {}
    handlers = {"tasks/get": tasks.get, "tasks/cancel": tasks.cancel, "tasks/update": tasks.update}

    def method(serve: TaskMethod) -> Any:
        async def on_task(ctx: Any, params: Any) -> Any:
            if ctx.protocol_version not in MODERN_VERSIONS:
                raise MCPError(METHOD_NOT_FOUND, "Method not found")
            raw = ctx.params if isinstance(ctx.params, Mapping) else {}
            try:
                return await serve(ctx, raw)
            except ValueError as refused:
                raise MCPError(INVALID_PARAMS, str(refused)) from None

        return on_task

    for name, serve in handlers.items():
        server.add_request_handler(name, types.RequestParams, method(serve))


async def publish_tools_changed(server: Any) -> None:
    """Tells the `subscriptions/listen` streams of a 2.x server that the tool list changed
    (the 1.x line has no such streams)."""
    await _publish(server, "ToolsListChanged")


async def publish_resources_changed(server: Any) -> None:
    """Tells the `subscriptions/listen` streams of a 2.x server that the resource list
    changed (the 1.x line has no such streams)."""
    await _publish(server, "ResourcesListChanged")


async def publish_resources_updated(server: Any, uris: set[str] | None) -> None:
    """Tells the `subscriptions/listen` streams of a 2.x server that the resources `uris`
    changed (`None`: every workspace file a stream listens to)."""
    bus = getattr(server, "orkestrel_bus", None)
    if bus is None:
        return
    # Deferred: an optional dependency's module, on the SDK's 2.x line only.
    from mcp.server.subscriptions import ResourceUpdated

    listened = set(getattr(server, "orkestrel_listening", ()))
    for uri in sorted(listened if uris is None else uris & listened):
        await bus.publish(ResourceUpdated(uri=uri))


async def _publish(server: Any, event: str) -> None:
    bus = getattr(server, "orkestrel_bus", None)
    if bus is None:
        return
    # Deferred: an optional dependency's module, on the SDK's 2.x line only.
    from mcp.server import subscriptions

    await bus.publish(getattr(subscriptions, event)())


def _server_v1(
    name: str,
    version: str,
    instructions: str | None,
    list_tools: ListTools,
    call_tool: CallTool,
) -> Any:
    lowlevel: Any = importlib.import_module("mcp.server.lowlevel.server")
    exceptions: Any = importlib.import_module("mcp.shared.exceptions")

    gates: ContextVar[CancelGate] = ContextVar("gate")

    class ListingServer(lowlevel.Server):  # type: ignore[misc]
        def create_initialization_options(self, *args: Any, **kwargs: Any) -> Any:
            if not args and kwargs.get("notification_options") is None:
                kwargs["notification_options"] = lowlevel.NotificationOptions(
                    tools_changed=True, resources_changed=True
                )
            return super().create_initialization_options(*args, **kwargs)

        def get_capabilities(self, *args: Any, **kwargs: Any) -> Any:
            # The 1.x line announces `resources.subscribe: false` even with a handler.
            capabilities = super().get_capabilities(*args, **kwargs)
            if capabilities.resources is not None and types.SubscribeRequest in (
                self.request_handlers
            ):
                capabilities.resources.subscribe = True
            return capabilities

        async def run(self, read_stream: Any, *args: Any, **kwargs: Any) -> Any:
            # One gate per session; the handler tasks the run spawns inherit it.
            gate = CancelGate()
            gates.set(gate)
            return await super().run(GatedStream(read_stream, gate), *args, **kwargs)

    server: Any = ListingServer(name, version=version, instructions=instructions)

    levels = LogLevels()

    def request(params: Any = None) -> Request:
        ctx = server.request_context
        token = None if ctx.meta is None else getattr(ctx.meta, "progressToken", None)
        return Request(ctx.request_id, ctx.session, token, ctx, params, levels)

    async def on_set_level(req: Any) -> Any:
        levels.set(connection(request()), req.params.level)
        return types.ServerResult(types.EmptyResult())

    async def on_list(req: Any) -> Any:
        if getattr(req.params, "cursor", None) is not None:
            error = types.ErrorData(code=INVALID_PARAMS, message=UNKNOWN_CURSOR)
            raise exceptions.McpError(error)
        return types.ServerResult(model("ListToolsResult", await list_tools(request())))

    async def on_call(req: Any) -> Any:
        if getattr(req.params, "task", None) is not None:
            # The 1.x line serves no tasks: the 2025-11-25 experimental form is refused.
            raise exceptions.McpError(
                types.ErrorData(code=INVALID_PARAMS, message=LEGACY_TASK_REFUSED)
            )
        try:
            with gates.get().call(server.request_context.request_id):
                answer = await call_tool(request(req.params), req.params.name, req.params.arguments)
        except CancelledCall as cancelled:
            error = types.ErrorData(code=REQUEST_CANCELLED, message=str(cancelled))
            raise exceptions.McpError(error) from None
        return types.ServerResult(model("CallToolResult", answer))

    server.request_handlers[types.ListToolsRequest] = on_list
    server.request_handlers[types.CallToolRequest] = on_call
    server.request_handlers[types.SetLevelRequest] = on_set_level
    return server


def wants_progress(request: Request) -> bool:
    """Whether the client of `request` listens for its progress. The 1.x line hands over the
    client's token; the 2.x session keeps it to itself, on its request's dispatch context (a
    JSON-RPC one holds the token, an in-process one the callback), so this reads it there and
    says yes where it cannot tell."""
    if MAJOR < 2:
        return request.progress_token is not None
    outbound: Any = getattr(request.session, "_request_outbound", None)
    for _ in range(8):
        if not hasattr(outbound, "_inner"):
            break
        outbound = outbound._inner  # a wrapper (one that refuses requests back, say)
    for held in ("_progress_token", "_on_progress"):
        if hasattr(outbound, held):
            return getattr(outbound, held) is not None
    return True


async def report_progress(
    request: Request, progress: float, total: float | None, message: str | None
) -> None:
    """Sends `notifications/progress` for `request`; nothing when the client asked for none."""
    if MAJOR >= 2:
        # The 2.x session is scoped to its request and knows the client's token.
        await request.session.report_progress(progress, total, message)
        return
    if request.progress_token is None:
        return
    await request.session.send_progress_notification(
        request.progress_token, progress, total, message, related_request_id=request.id
    )


async def send_log(request: Request, level: str, data: Any, logger: str | None) -> None:
    """Sends `notifications/message` on `request`'s stream. On the 2026 protocol era a
    request receives only the levels it opted in to, as the 2.x session records them; before,
    a connection hears nothing below the level it set with `logging/setLevel`."""
    if request.levels is not None and not request.levels.allows(connection(request), level):
        return
    params = {"level": level, "data": data, **({"logger": logger} if logger else {})}
    if MAJOR >= 2:
        # `send_log_message` warns that logging is deprecated for the 2026 era; this is the
        # same delivery, through the public notification path, under the session's own gate.
        allowed = getattr(request.session, "_allowed_log_levels", None)
        if allowed is not None and level not in allowed:
            return
        notification = model("LoggingMessageNotification", {"params": params})
        await request.session.send_notification(notification, related_request_id=request.id)
        return
    notification = types.ServerNotification(model("LoggingMessageNotification", {"params": params}))
    await request.session.send_notification(notification, related_request_id=request.id)


def connection(request: Request) -> Any:
    """The connection `request` came in on: it outlives the request, is weakly referable, and
    can send `notifications/tools/list_changed` (`send_tool_list_changed()`)."""
    # 2.x hands each request its own session view over one connection; 1.x has one session.
    return getattr(request.session, "_connection", request.session)


def session_manager(
    server: Any,
    *,
    idle_timeout: float | None,
    max_sessions: int | None,
    stateless: bool = False,
    sessions: dict[str, Any] | None = None,
) -> Any:
    """Builds the SDK's streamable HTTP session manager over `server`, with our own transport
    guard in front of it instead of the SDK's (see `orkestrel.mcp.http`). A `stateless` one
    keeps no session: each POST is served on its own and answered with plain JSON. A stateful
    one keeps its open sessions in `sessions` when given (a table that gives each session's
    transport its event store)."""
    # Deferred for start-up time: a client never loads the SDK's server side.
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    if MAJOR < 2:
        _quiet_closed_streams()
    manager = StreamableHTTPSessionManager(
        app=server,
        session_idle_timeout=idle_timeout,
        max_sessions=max_sessions,
        stateless=stateless,
        json_response=stateless,
    )
    if sessions is not None and not stateless:
        # Both SDK lines register every new session's transport in this one table.
        manager._server_instances = sessions
    return manager


def message_json(message: Any) -> str:
    """The wire JSON of an SDK `JSONRPCMessage`, as the transport sends it."""
    text: str = message.model_dump_json(by_alias=True, exclude_unset=True)
    return text


def event_message(message: Any, event_id: str) -> Any:
    """Wraps a kept message and its event id for the transport's replay."""
    # Deferred for start-up time: a client never loads the SDK's server side.
    from mcp.server.streamable_http import EventMessage

    return EventMessage(message, event_id)


class _ClosedStreamFilter(logging.Filter):
    """Drops the 1.x SDK's error log of an event stream that ended because its session closed
    (a `ClosedResourceError`, logged with a traceback on every client that disconnects)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError)


def _quiet_closed_streams() -> None:
    target = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(item, _ClosedStreamFilter) for item in target.filters):
        target.addFilter(_ClosedStreamFilter())


def stdio(stdin: Any, stdout: Any) -> AbstractAsyncContextManager[tuple[Any, Any]]:
    """Opens the SDK's stdio transport over the given line streams."""
    # Deferred for start-up time: a client never loads the SDK's server side.
    from mcp.server.stdio import stdio_server

    return stdio_server(stdin=stdin, stdout=stdout)


def parse_message(line: str) -> Any:
    """Validates one JSON-RPC line exactly as the installed SDK's stdio reader does; raises
    when the SDK would drop it."""
    if MAJOR >= 2:
        return types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    return types.JSONRPCMessage.model_validate_json(line)


def session_message(wire_message: Mapping[str, Any]) -> Any:
    """Wraps a wire JSON-RPC message for the SDK's write stream."""
    # Deferred for start-up time: loaded when the first message is wrapped.
    from mcp.shared.message import SessionMessage

    if MAJOR >= 2:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(dict(wire_message)))
    return SessionMessage(types.JSONRPCMessage.model_validate(dict(wire_message)))


@asynccontextmanager
async def client_session(target: Any) -> AsyncIterator[Any]:
    """Opens a client connection to `target` (stdio parameters or an `http(s)://` URL) with the
    installed line's own client, and yields it initialized."""
    if MAJOR >= 2:
        # Deferred: an optional dependency's module, on the SDK's 2.x line only.
        from mcp.client import Client

        async with Client(target) as client:
            yield client
        return
    # Deferred for start-up time: a server never loads the SDK's client side.
    from mcp.client.session import ClientSession

    if isinstance(target, str):
        http: Any = importlib.import_module("mcp.client.streamable_http")
        transport = http.streamable_http_client(target)
    else:
        # Deferred for start-up time: a server never loads the SDK's client side.
        from mcp.client.stdio import stdio_client

        transport = stdio_client(target)
    async with transport as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        yield session


def is_session(source: Any) -> bool:
    """Tells whether `source` is an open client of the installed line (a 2.x `Client` or a
    `ClientSession`)."""
    # Deferred for start-up time: a server never loads the SDK's client side.
    from mcp.client.session import ClientSession

    if isinstance(source, ClientSession):
        return True
    if MAJOR >= 2:
        # Deferred: an optional dependency's module, on the SDK's 2.x line only.
        from mcp.client import Client

        return isinstance(source, Client)
    return False


async def enter_client(source: Any, stack: Any) -> Any:
    """Enters a 2.x `Client` that is not connected yet; returns the source."""
    if MAJOR >= 2:
        # Deferred: an optional dependency's module, on the SDK's 2.x line only.
        from mcp.client import Client

        if isinstance(source, Client):
            try:
                source.session  # noqa: B018
            except RuntimeError:
                await stack.enter_async_context(source)
    return source


async def list_page(session: Any, cursor: str | None) -> tuple[list[Any], str | None]:
    """Lists one page of a remote server's tools; gives the tools and the next cursor."""
    if MAJOR >= 2:
        # Deferred: an optional dependency's module, on the SDK's 2.x line only.
        from mcp.client import Client

        if isinstance(session, Client):
            page = await session.list_tools(cursor=cursor)
        else:
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        return list(page.tools), page.next_cursor
    page = await session.list_tools(cursor=cursor)
    return list(page.tools), page.nextCursor


async def call_remote(session: Any, name: str, arguments: dict[str, Any]) -> Any:
    """Calls a remote tool; cancelling the caller cancels the remote call (the 1.x client
    does not say so to the server by itself, so this sends `notifications/cancelled`)."""
    if MAJOR >= 2:
        return await session.call_tool(name, arguments)

    ident = session._request_id
    try:
        return await session.call_tool(name, arguments)
    except anyio.get_cancelled_exc_class():
        cancel = types.CancelledNotification(
            params=types.CancelledNotificationParams(requestId=ident)
        )
        # A connection that is gone took the remote call with it.
        gone = contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError)
        with anyio.CancelScope(shield=True), anyio.move_on_after(5), gone:
            await session.send_notification(types.ClientNotification(cancel))
        raise


def stdio_parameters(command: str, args: list[str]) -> Any:
    """Builds stdio launch parameters for a server command that inherits this process's
    environment, as a subprocess does (the SDK's default passes only a few variables)."""
    # Deferred for start-up time: a server never loads the SDK's client side.
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=command, args=args, env=dict(os.environ))


def is_stdio_parameters(source: Any) -> bool:
    """Tells whether `source` is the installed line's stdio launch parameters."""
    # Deferred for start-up time: a server never loads the SDK's client side.
    from mcp.client.stdio import StdioServerParameters

    return isinstance(source, StdioServerParameters)


def sdk_version() -> str:
    """The installed MCP SDK's version string."""
    return metadata.version("mcp")


def message_from_wire(wire: Mapping[str, Any]) -> Any:
    """The installed line's `JSONRPCMessage` from its wire JSON (a kept event read back)."""
    if MAJOR >= 2:
        return types.jsonrpc_message_adapter.validate_python(dict(wire))
    return types.JSONRPCMessage.model_validate(dict(wire))
