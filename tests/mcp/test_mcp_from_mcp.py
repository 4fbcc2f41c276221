"""`from_mcp`: a remote MCP server's tools as `Tool`s in a `ToolManager`, aggregating servers."""

from __future__ import annotations

import shlex
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from orkestrel.mcp import ToolNameCollisionError, create_server, from_mcp
from orkestrel.tool import ToolCall, ToolManager, ToolManagerInterface
from support.mcp_client import MODES, connect, needs_v2, raw_session, stdio, text

APP = Path(__file__).resolve().parent / "app.py"

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def wrapped(server: Any, **options: Any) -> AsyncIterator[ToolManagerInterface]:
    """`from_mcp` over an in-process server, through a client of the installed SDK line."""
    async with connect(server) as client, from_mcp(client.client, **options) as tools:
        yield tools


ADD_HINTS = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}


def call(name: str, **arguments: Any) -> ToolCall:
    return {"id": name, "name": name, "arguments": arguments}


async def check_wrapped(tools: ToolManagerInterface, app: ModuleType, prefix: str = "") -> None:
    """The wrapped registry lists the remote tools and answers like them."""
    local = app.build()
    assert [tool.name for tool in tools.tools()] == [prefix + tool.name for tool in local.tools()]
    add = tools.tool(prefix + "add")
    assert add is not None
    assert (add.description, add.parameters) == ("Add two numbers.", app.NUMBERS)
    assert add.annotations == ADD_HINTS
    results = await tools.execute(
        [
            call(prefix + "add", left=2, right=3),
            call(prefix + "echo", nested={"list": [1, None]}),
            call(prefix + "shout", text="hey"),
            call(prefix + "add", left="two"),
            call(prefix + "multiline"),
        ]
    )
    assert [result.get("value", result.get("error")) for result in results] == [
        5,
        {"nested": {"list": [1, None]}},
        "HEY",
        "add: left and right must be numbers",
        "first line\nsecond line",
    ]
    assert [result["success"] for result in results] == [True, True, True, False, False]


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_connected_client_is_wrapped_and_left_open(app: ModuleType, mode: str) -> None:
    async with connect(create_server(app.build()), mode=mode) as client:
        async with from_mcp(client.client) as tools:
            await check_wrapped(tools, app)
        assert tools.count == 0
        assert (await client.call_tool("add", {"left": 1, "right": 1})).get("isError") is False


async def test_a_client_session_is_wrapped(app: ModuleType) -> None:
    async with (
        connect(create_server(app.build())) as client,
        from_mcp(raw_session(client), prefix="s.") as tools,
    ):
        await check_wrapped(tools, app, "s_")


@needs_v2
async def test_an_unopened_client_is_opened_and_closed(app: ModuleType) -> None:
    from mcp.client import Client

    client = Client(create_server(app.build()))
    async with from_mcp(client) as tools:
        await check_wrapped(tools, app)
        assert client.session is not None
    with pytest.raises(RuntimeError, match="async context manager"):
        client.session  # noqa: B018


SOURCES: dict[str, Callable[[], Any]] = {
    "argv": lambda: [sys.executable, str(APP)],
    "command-line": lambda: shlex.join([sys.executable, str(APP)]),
    "parameters": lambda: stdio(sys.executable, [str(APP)]),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
async def test_a_command_starts_a_server_process(app: ModuleType, source: str) -> None:
    async with from_mcp(SOURCES[source]()) as tools:
        await check_wrapped(tools, app)


async def test_a_url_connects_over_http(app: ModuleType, app_url: str) -> None:
    async with from_mcp(app_url, prefix="web_") as tools:
        await check_wrapped(tools, app, "web_")


@pytest.mark.parametrize("source", [[], "", "   "])
async def test_an_empty_command_is_refused(source: Any) -> None:
    with pytest.raises(ValueError, match="needs a command"):
        async with from_mcp(source):
            pass


async def test_servers_aggregate_into_one_manager_with_prefixes(app: ModuleType) -> None:
    manager = ToolManager()
    local = app.build()
    async with (
        wrapped(create_server(app.build()), manager=manager) as first,
        from_mcp([sys.executable, str(APP)], prefix="two_", manager=manager) as second,
    ):
        assert first is manager
        assert second is manager
        assert manager.count == 2 * local.count
        results = await manager.execute(
            [call("add", left=1, right=2), call("two_add", left=3, right=4)]
        )
        assert [result.get("value") for result in results] == [3, 7]
    assert manager.count == 0


async def test_a_name_collision_refuses_the_whole_server(app: ModuleType) -> None:
    manager = ToolManager()
    manager.add(app.build().tools()[:2])
    kept = manager.tools()
    with pytest.raises(ToolNameCollisionError) as caught:
        async with wrapped(create_server(app.build()), manager=manager):
            pass
    assert caught.value.names == ("add", "echo")
    assert str(caught.value) == "tool name collision: 'add', 'echo'; pass prefix= to keep both"
    assert manager.tools() == kept
    async with wrapped(create_server(app.build()), manager=manager, prefix="x_"):
        assert manager.count == 2 + app.build().count
    assert manager.tools() == kept


async def test_an_error_in_the_body_propagates_as_itself(app: ModuleType) -> None:
    async def body() -> None:
        async with from_mcp([sys.executable, str(APP)]) as tools:
            assert tools.count == app.build().count
            raise LookupError("from the body") from KeyError("why")

    with pytest.raises(LookupError, match="from the body") as caught:
        await body()
    assert isinstance(caught.value.__cause__, KeyError)


async def test_a_prefix_that_collides_within_the_registry_is_refused(app: ModuleType) -> None:
    local = app.build()
    manager = ToolManager()
    manager.add(local.tools())
    async with wrapped(create_server(local), prefix="p", manager=manager):
        with pytest.raises(ToolNameCollisionError):
            async with wrapped(create_server(local), prefix="p", manager=manager):
                pass
        assert manager.count == 2 * local.count


async def test_a_tool_replaced_while_open_is_not_removed_on_exit(app: ModuleType) -> None:
    async with wrapped(create_server(app.build())) as tools:
        replacement = app.build().tool("add")
        assert replacement is not None
        tools.add(replacement)
    assert [tool.name for tool in tools.tools()] == ["add"]
    assert tools.tool("add") is replacement


async def test_cancelling_a_wrapped_call_cancels_the_remote_call(
    app: ModuleType, tmp_path: Path
) -> None:
    marker = tmp_path / "watch"
    async with from_mcp([sys.executable, str(APP)]) as tools:
        result = await tools.execute(call("watch", marker=str(marker)), timeout=2)
        assert result == {
            "id": "watch",
            "name": "watch",
            "success": False,
            "error": "tool timed out after 2000 ms",
        }
        await app.poll(lambda: app.settled(marker))
    assert await anyio.Path(marker).read_text() == "cancelled"


async def test_a_wrapped_registry_serves_again_without_loss(app: ModuleType) -> None:
    async with (
        from_mcp([sys.executable, str(APP)], prefix="up_") as tools,
        connect(create_server(tools)) as client,
    ):
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        echoed = await client.call_tool("up_echo", {"a": [1, {"b": True}]})
        failed = await client.call_tool("up_add", {"left": None, "right": 1})
    assert listed["up_add"]["annotations"]["readOnlyHint"] is True
    assert listed["up_add"]["inputSchema"] == app.NUMBERS
    assert echoed.get("structuredContent") == {"a": [1, {"b": True}]}
    assert (failed.get("isError"), text(failed)) == (
        True,
        "add: left and right must be numbers",
    )
