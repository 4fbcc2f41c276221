"""Build an MCP server over a `ToolManager`, and a `ToolManager` over a remote MCP server."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.client import Client, ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.server import Server, ServerRequestContext

from orkestrel import __version__
from orkestrel.mcp.constants import DEFAULT_SERVER_NAME, MAX_LIST_PAGES
from orkestrel.mcp.elicitation import serving_request
from orkestrel.mcp.errors import ToolNameCollisionError
from orkestrel.mcp.helpers import mcp_to_value, raise_alone, result_to_mcp, tool_to_mcp
from orkestrel.mcp.types import McpSource
from orkestrel.tool import (
    Tool,
    ToolCall,
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
) -> Server[Any]:
    """Creates a low-level MCP SDK server whose tool listing is the manager's definitions and
    whose tool calls run through the manager's `execute`.

    The listing is read on every request, so tools added later are served. `timeout` (seconds)
    bounds each call as `ToolManager.execute` does. A client's cancellation cancels the running
    call. Raises `ValueError` when a registered tool cannot be listed: its annotations are not
    valid MCP annotations, or its parameter schema's root is not an object.
    """
    for tool in manager.tools():
        tool_to_mcp(tool)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool_to_mcp(tool) for tool in manager.tools()])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        call: ToolCall = {
            "id": str(ctx.request_id) if ctx.request_id is not None else str(uuid.uuid4()),
            "name": params.name,
            "arguments": params.arguments if params.arguments is not None else {},
        }
        with serving_request(ctx, params) as served:
            result = await manager.execute(call, timeout=timeout)
        if isinstance(served.input_required, types.InputRequiredResult):
            return served.input_required
        return result_to_mcp(result)

    def input_schema(tool_name: str) -> Mapping[str, Any] | None:
        tool = manager.tool(tool_name)
        return None if tool is None else tool.parameters

    return Server(
        name,
        version=version,
        instructions=instructions,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


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
    except BaseExceptionGroup as group:
        # The SDK's task groups wrap whatever crosses them; a lone error is re-raised as itself.
        raise_alone(group)


async def _connect(source: McpSource, stack: AsyncExitStack) -> Client | ClientSession:
    if isinstance(source, ClientSession):
        return source
    if isinstance(source, Client):
        try:
            source.session  # noqa: B018
        except RuntimeError:
            await stack.enter_async_context(source)
        return source
    return await stack.enter_async_context(Client(_server(source)))


def _server(source: StdioServerParameters | str | Any) -> StdioServerParameters | str:
    if isinstance(source, StdioServerParameters):
        return source
    if isinstance(source, str) and source.startswith(("http://", "https://")):
        return source
    argv = shlex.split(source) if isinstance(source, str) else [str(item) for item in source]
    if not argv:
        raise ValueError("from_mcp needs a command to start the server, got an empty one")
    return StdioServerParameters(command=argv[0], args=argv[1:])


async def _list(session: Client | ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        if isinstance(session, Client):
            page = await session.list_tools(cursor=cursor)
        else:
            page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise RuntimeError(f"the MCP server's tool listing did not end after {MAX_LIST_PAGES} pages")


def _wrap(session: Client | ClientSession, remote: types.Tool, prefix: str) -> ToolInterface:
    async def execute(args: Mapping[str, Any]) -> Any:
        result = await session.call_tool(remote.name, dict(args))
        return mcp_to_value(result, remote.name)

    annotations = remote.annotations
    return Tool(
        name=portable_name(prefix + remote.name),
        description=remote.description,
        parameters=remote.input_schema,
        annotations=None
        if annotations is None
        else annotations.model_dump(by_alias=True, exclude_none=True),
        execute=execute,
    )
