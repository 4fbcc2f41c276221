"""`serve` and `create_server` in process: HTTP on a free loopback port, options, backends."""

from __future__ import annotations

import functools
import socket
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

from orkestrel.mcp import create_server, serve
from orkestrel.tool import ToolManager, create_tool
from support.mcp_client import MODES, connect

pytestmark = pytest.mark.anyio


def refused(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


async def test_http_on_port_zero_reports_its_url_and_stops_when_cancelled(
    app: ModuleType,
) -> None:
    async with anyio.create_task_group() as group:
        url = await group.start(functools.partial(serve, app.build(), "http", port=0))
        parts = urlsplit(url)
        assert (parts.scheme, parts.hostname, parts.path) == ("http", "127.0.0.1", "/mcp")
        assert parts.port not in (None, 0)
        async with connect(url) as client:
            listed = await client.list_tools()
            answer = await client.call_tool("add", {"left": 40, "right": 2})
        group.cancel_scope.cancel()
    assert [tool["name"] for tool in listed][:2] == ["add", "echo"]
    assert answer["content"] == [{"type": "text", "text": "42"}]
    assert parts.port is not None
    assert refused(parts.port)


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not has_ipv6_loopback(), reason="no IPv6 loopback on this machine")
async def test_http_on_ipv6_loopback(app: ModuleType) -> None:
    async with anyio.create_task_group() as group:
        url = await group.start(functools.partial(serve, app.build(), "http", host="::1", port=0))
        async with connect(url) as client:
            answer = await client.call_tool("add", {"left": 1, "right": 2})
        group.cancel_scope.cancel()
    assert url.startswith("http://[::1]:")
    assert answer["content"] == [{"type": "text", "text": "3"}]


async def test_http_serves_on_a_custom_path(app: ModuleType) -> None:
    async with anyio.create_task_group() as group:
        url = await group.start(
            functools.partial(serve, app.build(), "http", port=0, path="/tools/mcp")
        )
        async with connect(url, mode="legacy") as client:
            answer = await client.call_tool("shout", {"text": "path"})
        group.cancel_scope.cancel()
    assert url.endswith("/tools/mcp")
    assert answer["content"] == [{"type": "text", "text": "PATH"}]


async def test_http_on_loopback_refuses_foreign_hosts_and_origins(
    app: ModuleType, http_post: Callable[..., tuple[int, bytes]]
) -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
    async with anyio.create_task_group() as group:
        url = await group.start(functools.partial(serve, app.build(), "http", port=0))
        host = await anyio.to_thread.run_sync(http_post, url, body, {"Host": "evil.example"})
        origin = await anyio.to_thread.run_sync(
            http_post, url, body, {"Origin": "http://evil.example"}
        )
        group.cancel_scope.cancel()
    assert (host[0], origin[0]) == (421, 403)


async def test_a_taken_port_is_an_os_error(app: ModuleType) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match="in use"):
            await serve(app.build(), "http", port=port)


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_http_needs_asyncio(app: ModuleType) -> None:
    with pytest.raises(RuntimeError, match="asyncio only"):
        await serve(app.build(), "http", port=0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"transport": "sse"}, "transport must be 'stdio' or 'http'"),
        ({"transport": "http", "port": -1}, "port must be an integer from 0 to 65535"),
        ({"transport": "http", "port": 65536}, "port must be an integer"),
        ({"transport": "http", "port": True}, "port must be an integer"),
        ({"transport": "http", "port": "80"}, "port must be an integer"),
    ],
)
async def test_bad_options_are_refused(
    app: ModuleType, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        await serve(app.build(), **options)


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_the_listing_follows_the_manager(anyio_backend: str) -> None:
    manager = ToolManager()
    server = create_server(manager, name="growing", version="9.9", instructions="Be kind.")
    async with connect(server) as client:
        assert await client.list_tools(refresh=True) == []
        manager.add(create_tool(name="late", execute=lambda args: "here"))
        listed = await client.list_tools(refresh=True)
        answer = await client.call_tool("late", {})
        manager.remove("late")
        gone = await client.call_tool("late", {})
        assert client.instructions() == "Be kind."
        assert client.server_info() == {"name": "growing", "version": "9.9"}
    assert [tool["name"] for tool in listed] == ["late"]
    assert answer["content"] == [{"type": "text", "text": "here"}]
    assert (gone.get("isError", False), gone["content"]) == (
        True,
        [{"type": "text", "text": "tool not found: late"}],
    )


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_a_server_timeout_fails_and_cancels_the_call(
    app: ModuleType, tmp_path: Path, anyio_backend: str
) -> None:
    marker = tmp_path / "watch"
    async with connect(create_server(app.build(), timeout=0.2)) as client:
        result = await client.call_tool("watch", {"marker": str(marker)})
        quick = await client.call_tool("add", {"left": 1, "right": 2})
    assert (result.get("isError", False), result["content"]) == (
        True,
        [{"type": "text", "text": "tool timed out after 200 ms"}],
    )
    assert await anyio.Path(marker).read_text() == "cancelled"
    assert quick["content"] == [{"type": "text", "text": "3"}]


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.parametrize("mode", MODES)
async def test_cancellation_in_process_on_both_backends(
    app: ModuleType, tmp_path: Path, anyio_backend: str, mode: str
) -> None:
    marker = tmp_path / "watch"
    async with connect(create_server(app.build()), mode=mode) as client:
        async with anyio.create_task_group() as group:
            group.start_soon(client.call_tool, "watch", {"marker": str(marker)})
            await app.poll(lambda: app.running(marker))
            group.cancel_scope.cancel()
        await app.poll(lambda: app.settled(marker))
        after = await client.call_tool("echo", {"still": "serving"})
    assert after.get("structuredContent") == {"still": "serving"}


def test_invalid_annotations_are_refused_when_the_server_is_built() -> None:
    manager = ToolManager()
    manager.add(
        create_tool(name="odd", annotations={"destructiveHint": []}, execute=lambda args: None)
    )
    with pytest.raises(ValueError, match="tool 'odd': invalid MCP annotations"):
        create_server(manager)


async def test_http_stops_while_a_client_is_still_connected(app: ModuleType) -> None:
    stopped = anyio.Event()
    scope = anyio.CancelScope()
    answers: list[dict[str, Any]] = []

    async def server(task_status: Any) -> None:
        with scope:
            await serve(app.build(), "http", port=0, task_status=task_status)
        stopped.set()

    async with anyio.create_task_group() as group:
        url = await group.start(server)
        async with connect(url, mode="legacy") as client:
            answers.append(await client.call_tool("add", {"left": 1, "right": 2}))
            scope.cancel()
            with anyio.fail_after(30):
                await stopped.wait()
    assert answers[0]["content"] == [{"type": "text", "text": "3"}]


def _fan_out(levels: int) -> Any:
    """A value of `levels` lists of two references to the level below: tiny in memory, 2**levels
    copies of the leaf as JSON."""
    value: Any = "x" * 100
    for _ in range(levels):
        value = [value, value]
    return value


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_an_answer_over_the_server_answer_cap_is_one_line_naming_the_cap(
    anyio_backend: str,
) -> None:
    manager = ToolManager()
    manager.add(create_tool(name="fan", execute=lambda args: {"v": _fan_out(args["levels"])}))
    manager.add(create_tool(name="fail", execute=lambda args: _raise("y" * args["n"])))
    async with connect(create_server(manager, max_answer_bytes=10_000)) as client:
        huge = await client.call_tool("fan", {"levels": 40})
        loud = await client.call_tool("fail", {"n": 20_000})
        small = await client.call_tool("fan", {"levels": 2})
        edge = await client.call_tool("fan", {"levels": 5})
        twice = await client.call_tool("fan", {"levels": 6})
    line = (
        "the tool's answer is over the server's answer cap of 10000 bytes of JSON "
        "(max_answer_bytes, serve --max-answer-bytes); ask for less"
    )
    assert (huge.get("isError"), huge["content"]) == (True, [{"type": "text", "text": line}])
    assert (loud.get("isError"), loud["content"]) == (True, [{"type": "text", "text": line}])
    assert small["structuredContent"] == {"v": [["x" * 100] * 2] * 2}
    # 32 leaves are 3.4 KB of JSON, 6.9 KB as text and structured content: under the cap.
    assert edge.get("isError", False) is False
    # 64 leaves are 6.8 KB once, under the cap, but 13.6 KB as the result carries them.
    assert (twice.get("isError"), twice["content"]) == (True, [{"type": "text", "text": line}])


def _raise(message: str) -> Any:
    raise RuntimeError(message)


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "big"])
def test_a_bad_answer_cap_is_refused_when_the_server_is_built(value: Any) -> None:
    with pytest.raises(ValueError, match="max_answer_bytes must be a positive integer"):
        create_server(ToolManager(), max_answer_bytes=value)
