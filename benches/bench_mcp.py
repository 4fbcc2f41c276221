"""Round trip of one `tools/call` through the SDK's client: the orkestrel bridge against the
SDK's own `MCPServer` serving the same tool, in process, in both protocol eras.

Run: `pytest benches/bench_mcp.py -c benches/pytest.ini` (from the repo root).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.client import Client
from mcp.server.mcpserver import MCPServer

from orkestrel.mcp import create_server
from orkestrel.tool import ToolManager, create_tool

ARGS = {"left": 2, "right": 3}


async def add(args: dict[str, Any]) -> dict[str, float]:
    return {"sum": float(args["left"]) + float(args["right"])}


async def add_typed(left: float, right: float) -> dict[str, float]:
    return {"sum": left + right}


def bridge() -> Any:
    tools = ToolManager()
    tools.add(create_tool(name="add", execute=add))
    return create_server(tools)


def sdk() -> MCPServer:
    server = MCPServer("sdk")
    server.tool(name="add")(add_typed)
    return server


@pytest.fixture
def connected(request: pytest.FixtureRequest, loop: asyncio.AbstractEventLoop) -> Iterator[Client]:
    """A client held open by a task of its own, so each measured call is one request."""
    server, mode = request.param
    client = Client(server(), mode=mode)
    ready, done = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with client:
            ready.set()
            await done.wait()

    owner = loop.create_task(hold())
    loop.run_until_complete(ready.wait())
    yield client
    done.set()
    loop.run_until_complete(owner)


CASES = [(bridge, "auto"), (sdk, "auto"), (bridge, "legacy"), (sdk, "legacy")]
IDS = ["orkestrel-auto", "sdk-mcpserver-auto", "orkestrel-legacy", "sdk-mcpserver-legacy"]


@pytest.mark.benchmark(group="tools/call round trip, in process")
@pytest.mark.parametrize("connected", CASES, ids=IDS, indirect=True)
def bench_call(benchmark: Any, loop: asyncio.AbstractEventLoop, connected: Client) -> None:
    result = benchmark(lambda: loop.run_until_complete(connected.call_tool("add", ARGS)))
    assert result.is_error is False
    assert result.structured_content in ({"sum": 5.0}, {"result": {"sum": 5.0}})
