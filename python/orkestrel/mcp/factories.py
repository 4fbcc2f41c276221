"""Build an MCP server over a `ToolManager`, and a `ToolManager` over a remote MCP server."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio

from orkestrel import __version__
from orkestrel.mcp import sdk
from orkestrel.mcp.apps import (
    app_contents,
    app_meta,
    app_of,
    app_resource,
    served_apps,
    supports_apps,
    view_tool,
)
from orkestrel.mcp.constants import (
    APPS_EXTENSION,
    DEFAULT_MAX_ANSWER_BYTES,
    DEFAULT_SERVER_NAME,
    MAX_LIST_PAGES,
)
from orkestrel.mcp.context import McpToolContext
from orkestrel.mcp.elicitation import serving_request
from orkestrel.mcp.errors import ToolNameCollisionError
from orkestrel.mcp.features import (
    MAX_COMPLETIONS,
    changes_resources,
    create_features,
    updated_files,
)
from orkestrel.mcp.helpers import mcp_to_value, raise_alone, result_wire, return_type, tool_wire
from orkestrel.mcp.icons import check_icons
from orkestrel.mcp.listing import ListingWatch
from orkestrel.mcp.resource_subscriptions import ResourceSubscriptions
from orkestrel.mcp.tasks import TaskBroker
from orkestrel.mcp.types import McpSource
from orkestrel.telemetry import failed, tool_error_type, tool_span
from orkestrel.tool import (
    Tool,
    ToolCall,
    ToolContext,
    ToolInterface,
    ToolManager,
    ToolManagerInterface,
    portable_name,
)


def create_server(
    manager: ToolManagerInterface,
    *,
    name: str = DEFAULT_SERVER_NAME,
    version: str = __version__,
    instructions: str | None = None,
    timeout: float | None = None,
    watch: ListingWatch | None = None,
    max_answer_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES,
    strict_schemas: bool = False,
    tasks: TaskBroker | None = None,
    icons: Sequence[Mapping[str, Any]] = (),
    completion_values: int = MAX_COMPLETIONS,
) -> Any:
    """Creates a low-level MCP SDK server (of the installed SDK line) whose tool listing is the
    manager's definitions and whose tool calls run through the manager's `execute`.

    The listing is read on every request, so tools added later are served, and the server
    advertises `tools.listChanged`: after every call it tells each connection whose listing
    changed (`watch`, when given, is the tracker `serve` also polls). `timeout` (seconds)
    bounds each call as `ToolManager.execute` does. Each call's `caller` is an
    `McpToolContext`, so handlers can report progress and log to the client. A client's
    cancellation cancels the running call. A call result over `max_answer_bytes` bytes of JSON
    (default `DEFAULT_MAX_ANSWER_BYTES`; `None` for no cap) is answered with an error naming the
    cap instead, measured before it is written. With `strict_schemas`, every input schema is
    listed in OpenAI's strict subset where it has one, in its lean form (see `tool_wire`), so
    clients that check strict compatibility (OpenAI Agents SDK, pydantic-ai) keep strict mode.
    With `tasks`, a call of one of its tools, or of a tool made with `task=True`, from a client
    that declared the Tasks extension is answered at once with a task, and runs on in the broker
    (see `TaskBroker`). `icons` (MCP `Icon` objects: `src`, and optionally `mimeType`,
    `sizes`, `theme`) are announced in the server's info and listed on every tool, resource
    template, prompt and app view it serves; a completion answers at most `completion_values`
    values (1 to 100). Raises `IconError` for an icon that is not safe to announce (see
    `check_icons`), and `ValueError` when a registered tool cannot be listed (its annotations
    are not valid MCP annotations, or its parameter schema's root is not an object), or when
    `max_answer_bytes` is not a positive integer or `completion_values` is out of range.
    """
    if max_answer_bytes is not None and (
        isinstance(max_answer_bytes, bool)
        or not isinstance(max_answer_bytes, int)
        or max_answer_bytes <= 0
    ):
        raise ValueError(f"max_answer_bytes must be a positive integer, got {max_answer_bytes!r}")
    if (
        isinstance(completion_values, bool)
        or not isinstance(completion_values, int)
        or not 1 <= completion_values <= MAX_COMPLETIONS
    ):
        raise ValueError(
            f"completion_values must be a whole number from 1 to {MAX_COMPLETIONS} (the "
            f"protocol's cap), got {completion_values!r}"
        )
    announced = check_icons(icons)
    for tool in manager.tools():
        tool_wire(tool, strict=strict_schemas)
    listing = watch if watch is not None else ListingWatch(manager)
    subscriptions = ResourceSubscriptions(manager)

    async def list_tools(request: sdk.Request) -> dict[str, Any]:
        listing.listed(request)
        tools = manager.tools()
        entries = [tool_wire(tool, strict=strict_schemas) for tool in tools]
        if supports_apps(request.session):
            for tool, entry in zip(tools, entries, strict=True):
                app = app_of(tool)
                if app is not None:
                    entry["_meta"] = app_meta(app)
            for app in served_apps(manager).values():
                for view in app.tools:
                    entry = tool_wire(view, strict=strict_schemas)
                    entry["_meta"] = app_meta(app, ("app",))
                    entries.append(entry)
        for entry in entries if announced else ():
            entry["icons"] = [dict(icon) for icon in announced]
        return {"tools": entries}

    async def run_task(tool_name: str, arguments: Any, caller: ToolContext) -> dict[str, Any]:
        call: ToolCall = {
            "id": str(getattr(caller, "request_id", None) or uuid.uuid4()),
            "name": tool_name,
            "arguments": arguments if arguments is not None else {},
            "caller": caller,
        }
        tool = manager.tool(tool_name)
        # A task has no request: an ask reaches its client through the task's input requests.
        with (
            serving_request(None, task=getattr(caller, "input", None)),
            tool_span(tool_name, call["id"]) as span,
        ):
            result = await manager.execute(call, timeout=timeout)
            if result["success"] is False:
                failed(span, tool_error_type(result["error"]), result["error"])
        await listing.check()
        return result_wire(result, None if tool is None else return_type(tool), max_answer_bytes)

    async def call_tool(request: sdk.Request, tool_name: str, arguments: Any) -> dict[str, Any]:
        listing.joined(request)
        if tasks is not None and tasks.wants(request.context, tool_name):
            return await tasks.start(request.context, tool_name, arguments)
        call: ToolCall = {
            "id": str(request.id) if request.id is not None else str(uuid.uuid4()),
            "name": tool_name,
            "arguments": arguments if arguments is not None else {},
            "caller": McpToolContext(request),
        }
        tool = manager.tool(tool_name)
        runner = manager
        if tool is None and supports_apps(request.session):
            # A view's own tool, served only to clients that negotiated MCP Apps.
            tool = view_tool(manager, tool_name)
            if tool is not None:
                runner = ToolManager()
                runner.add(tool)
        with (
            serving_request(request.context, request.params) as served,
            tool_span(tool_name, call["id"]) as span,
        ):
            result = await runner.execute(call, timeout=timeout)
            # A call answered with the client's input to get first has not failed.
            if result["success"] is False and served.input_required is None:
                failed(span, tool_error_type(result["error"]), result["error"])
        await listing.check()
        if result["success"] and changes_resources(tool_name, arguments):
            await listing.resources_changed()
        changed = updated_files(tool_name, arguments) if result["success"] else []
        if changed != []:
            await subscriptions.updated(changed)
        if served.input_required is not None:
            # The ask inside the call needs the client's input first (the 2026 protocol era).
            return served.input_required
        return result_wire(result, None if tool is None else return_type(tool), max_answer_bytes)

    def input_schema(tool_name: str) -> Mapping[str, Any] | None:
        tool = manager.tool(tool_name)
        return None if tool is None else tool.parameters

    features = create_features(manager, icons=announced, completion_values=completion_values)
    file_list, file_read = features["resources/list"], features["resources/read"]

    async def list_resources(request: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        answer = await file_list(request, params)
        if params.get("cursor") is None and supports_apps(request.session):
            views = [app_resource(app, announced) for app in served_apps(manager).values()]
            answer["resources"] = [*views, *answer["resources"]]
        return answer

    async def read_resource(request: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        app = served_apps(manager).get(str(params.get("uri", "")))
        if app is not None and supports_apps(request.session):
            return app_contents(app)
        return await file_read(request, params)

    extras = {
        **features,
        "resources/list": list_resources,
        "resources/read": read_resource,
        "resources/subscribe": subscriptions.subscribe,
        "resources/unsubscribe": subscriptions.unsubscribe,
    }
    if tasks is not None:
        tasks.attach(run_task, lambda name: getattr(manager.tool(name), "task", False) is True)
    server = sdk.build_server(
        name, version, instructions, list_tools, call_tool, input_schema, extras, tasks, announced
    )
    if served_apps(manager):
        sdk.declare_extension(server, APPS_EXTENSION)
    listing.serve(server)
    subscriptions.serve(server)
    return server


@asynccontextmanager
async def from_mcp(
    source: McpSource, *, prefix: str = "", manager: ToolManagerInterface | None = None
) -> AsyncIterator[ToolManagerInterface]:
    """Wraps the tools of a remote MCP server as `Tool`s in a `ToolManager`, for as long as the
    context is open.

    `source` is a connected `Client` or `ClientSession` (left open), `StdioServerParameters`, an
    `http(s)://` URL, a command line or an argument vector (the process or connection is closed
    on exit). Every remote name is registered as `portable_name(prefix + name)` (so
    `prefix="weather."` registers `weather_lookup`, a name every provider accepts; `_` is the
    separator that works everywhere), into `manager` when given so that one registry
    aggregates several servers; the remote tool is still called by its own name. A name
    already registered, or repeated, raises `ToolNameCollisionError` before anything is added.
    On exit the wrapped tools are removed.
    """
    target: ToolManagerInterface = manager if manager is not None else ToolManager()
    finished = False
    try:
        async with AsyncExitStack() as stack:
            session = await _connect(source, stack)
            tools = [_wrap(session, remote, prefix) for remote in await _list(session)]
            names = [tool.name for tool in tools]
            taken = {n for n in names if names.count(n) > 1 or target.tool(n) is not None}
            if taken:
                raise ToolNameCollisionError(sorted(taken))
            target.add(tools)
            try:
                yield target
            finally:
                for tool in tools:
                    if target.tool(tool.name) is tool:
                        target.remove(tool.name)
            finished = True
    except BaseExceptionGroup as group:
        if finished:
            # A server's answer that arrives while the 1.x client closes (the answer to a call
            # cancelled just before) fails the SDK's reader on the closed session: nothing was
            # waiting for it, so closing still succeeded.
            _, rest = group.split((anyio.BrokenResourceError, anyio.ClosedResourceError))
            if rest is None:
                return
            group = rest
        # The SDK's task groups wrap whatever crosses them; a lone error is re-raised as itself.
        raise_alone(group)


async def _connect(source: McpSource, stack: AsyncExitStack) -> Any:
    if sdk.is_session(source):
        return await sdk.enter_client(source, stack)
    return await stack.enter_async_context(sdk.client_session(_server(source)))


def _server(source: Any) -> Any:
    if sdk.is_stdio_parameters(source):
        return source
    if isinstance(source, str) and source.startswith(("http://", "https://")):
        return source
    argv = shlex.split(source) if isinstance(source, str) else [str(item) for item in source]
    if not argv:
        raise ValueError("from_mcp needs a command to start the server, got an empty one")
    return sdk.stdio_parameters(argv[0], argv[1:])


async def _list(session: Any) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page, cursor = await sdk.list_page(session, cursor)
        tools.extend(sdk.wire(tool) for tool in page)
        if cursor is None:
            return tools
    raise RuntimeError(f"the MCP server's tool listing did not end after {MAX_LIST_PAGES} pages")


def _wrap(session: Any, remote: dict[str, Any], prefix: str) -> ToolInterface:
    remote_name: str = remote["name"]

    async def execute(args: Mapping[str, Any]) -> Any:
        result = await sdk.call_remote(session, remote_name, dict(args))
        return mcp_to_value(result, remote_name)

    return Tool(
        name=portable_name(prefix + remote_name),
        description=remote.get("description"),
        parameters=remote.get("inputSchema"),
        annotations=remote.get("annotations"),
        execute=execute,
    )
