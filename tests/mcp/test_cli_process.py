"""`orkestrel serve` as a real process, driven by the SDK's own client over stdio and over
streamable HTTP on a free loopback port: the toolbox end to end, across restarts."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.anyio

if importlib.util.find_spec("orkestrel.__main__") is None:
    pytest.skip("the orkestrel command line has not landed yet", allow_module_level=True)

ORKESTREL = [sys.executable, "-m", "orkestrel"]
SHOP = {"products": {"columns": {"name": "string", "price": "number"}}}

Connect = Callable[..., AbstractAsyncContextManager[Client]]


def only_text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, spawn_http: Any, tmp_path: Path) -> Connect:
    """Starts `orkestrel serve` with the given arguments and connects the SDK's client."""
    transport = str(request.param)

    @asynccontextmanager
    async def open_client(*argv: str, env: dict[str, str] | None = None) -> AsyncIterator[Client]:
        if transport == "stdio":
            parameters = StdioServerParameters(
                command=ORKESTREL[0], args=[*ORKESTREL[1:], "serve", *argv], env=env
            )
            async with Client(parameters) as client:
                yield client
            return
        command = [*ORKESTREL, "serve", "--transport", "http", "--port", "0", *argv]
        log = tmp_path / f"serve-{os.urandom(4).hex()}.log"
        with spawn_http(command, log, env) as url:
            async with Client(url) as client:
                yield client

    return open_client  # type: ignore[return-value]


def state(tmp_path: Path) -> list[str]:
    return ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]


async def test_the_toolbox_end_to_end_and_after_a_restart(connect: Connect, tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    async with connect(*state(tmp_path)) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        created = await client.call_tool(
            "database", {"operation": "create", "id": "shop", "tables": SHOP}
        )
        added = await client.call_tool(
            "database",
            {
                "operation": "add",
                "id": "shop",
                "table": "products",
                "row": [
                    {"id": "tea", "name": "Tea", "price": 3.5},
                    {"id": "jam", "name": "Jam", "price": 4},
                ],
            },
        )
        read = await client.call_tool(
            "database", {"operation": "records", "id": "shop", "table": "products"}
        )
        invalid = await client.call_tool("database", {"operation": "records", "id": 7})
    assert "database" in listed
    assert listed["database"].input_schema["type"] == "object"
    assert created.structured_content == {"id": "shop", "tables": ["products"]}
    assert added.structured_content == {"keys": ["tea", "jam"]}
    assert read.structured_content is not None
    assert [row["name"] for row in read.structured_content["rows"]] == ["Jam", "Tea"]
    assert invalid.is_error is True
    assert only_text(invalid).startswith("malformed database call: ")
    assert "\n" not in only_text(invalid)
    async with connect(*state(tmp_path)) as client:
        again = await client.call_tool(
            "database", {"operation": "records", "id": "shop", "table": "products"}
        )
    assert again.structured_content == read.structured_content


async def test_readonly_refuses_writes_and_serves_reads(connect: Connect, tmp_path: Path) -> None:
    async with connect(*state(tmp_path)) as client:
        await client.call_tool("database", {"operation": "create", "id": "shop", "tables": SHOP})
        await client.call_tool(
            "database",
            {
                "operation": "set",
                "id": "shop",
                "table": "products",
                "row": {"id": "a", "name": "A", "price": 1},
            },
        )
    async with connect(*state(tmp_path), "--readonly") as client:
        refused = await client.call_tool(
            "database",
            {
                "operation": "set",
                "id": "shop",
                "table": "products",
                "row": {"id": "b", "name": "B", "price": 2},
            },
        )
        count = await client.call_tool(
            "database", {"operation": "count", "id": "shop", "table": "products"}
        )
    assert (refused.is_error, only_text(refused)) == (
        True,
        "operation 'set' is disabled in readonly mode",
    )
    assert count.structured_content == {"count": 1}


async def test_a_plugin_package_contributes_tools(
    connect: Connect, tmp_path: Path, plugin: Any
) -> None:
    env = {"PYTHONPATH": str(plugin.directory)}
    async with connect(*state(tmp_path), "--tools", "greet,database", env=env) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        hello = await client.call_tool("hello", {"who": "plugin"})
    assert names == ["hello", "where", "refuse", "database"]
    assert only_text(hello) == '"hello plugin"'
    async with connect(*state(tmp_path), "--tools", "greet", env=env) as client:
        only = [tool.name for tool in (await client.list_tools()).tools]
    assert only == ["hello", "where", "refuse"]
