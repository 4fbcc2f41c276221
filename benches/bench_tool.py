"""Per-call overhead of `ToolManager.execute` against calling the handler directly.

Run: `pytest benches/bench_tool.py` (from the repo root, with a release build installed).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from orkestrel.tool import Tool, ToolCall, ToolManager


async def add(args: dict[str, Any]) -> float:
    return float(args["left"]) + float(args["right"])


def add_sync(args: dict[str, Any]) -> float:
    return float(args["left"]) + float(args["right"])


ARGS = {"left": 2, "right": 3}
CALL: ToolCall = {"id": "1", "name": "add", "arguments": ARGS}
BATCH: list[ToolCall] = [{"id": str(i), "name": "add", "arguments": ARGS} for i in range(100)]


def manager() -> ToolManager:
    tools = ToolManager()
    tools.add([Tool(name="add", execute=add), Tool(name="add_sync", execute=add_sync)])
    return tools


@pytest.mark.benchmark(group="single call, async handler")
def bench_bare_await(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    assert benchmark(lambda: loop.run_until_complete(add(ARGS))) == 5


@pytest.mark.benchmark(group="single call, async handler")
def bench_manager_execute(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    tools = manager()
    result = benchmark(lambda: loop.run_until_complete(tools.execute(CALL)))
    assert result["success"]


@pytest.mark.benchmark(group="single call, sync handler")
def bench_bare_sync_call(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    async def direct() -> float:
        return add_sync(ARGS)

    assert benchmark(lambda: loop.run_until_complete(direct())) == 5


@pytest.mark.benchmark(group="single call, sync handler")
def bench_manager_execute_sync_in_thread(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    tools = manager()
    call: ToolCall = {"id": "1", "name": "add_sync", "arguments": ARGS}
    assert benchmark(lambda: loop.run_until_complete(tools.execute(call)))["success"]


@pytest.mark.benchmark(group="batch of 100, async handler")
def bench_bare_gather(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    async def gather() -> list[float]:
        return list(await asyncio.gather(*(add(call["arguments"]) for call in BATCH)))

    assert len(benchmark(lambda: loop.run_until_complete(gather()))) == 100


@pytest.mark.benchmark(group="batch of 100, async handler")
def bench_manager_batch(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    tools = manager()
    results = benchmark(lambda: loop.run_until_complete(tools.execute(BATCH)))
    assert len(results) == 100


@pytest.mark.benchmark(group="single call, async handler")
def bench_mcp_tool_manager(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    tools_module = pytest.importorskip("mcp.server.mcpserver.tools")
    context_module = pytest.importorskip("mcp.server.mcpserver.context")

    async def add_typed(left: float, right: float) -> float:
        return left + right

    tools = tools_module.ToolManager()
    tools.add_tool(add_typed, name="add")
    context = context_module.Context()
    result = benchmark(lambda: loop.run_until_complete(tools.call_tool("add", ARGS, context)))
    assert result == 5
