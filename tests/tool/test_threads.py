"""Sync handlers in worker threads: timeouts that fail on time, abandoned threads that keep
their place until they end, and a limiter apart from the database layer's."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
import pytest

from orkestrel.database import DATABASE_THREAD_LIMIT, create_database, database_thread_limiter
from orkestrel.tool import TOOL_THREAD_LIMIT, Tool, ToolCall, ToolManager, tool, tool_thread_limiter

pytestmark = pytest.mark.anyio

GUARD = 10.0
"""Seconds a blocked handler waits at most, so that a regression fails instead of hanging."""


class Gate:
    """A sync handler that blocks until released, counting the threads inside it."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.inside = 0
        self.entered = 0
        self.left = 0

    def __call__(self, args: Any = None) -> str:
        with self.lock:
            self.inside += 1
            self.entered += 1
        try:
            self.release.wait(GUARD)
            return "late"
        finally:
            with self.lock:
                self.inside -= 1
                self.left += 1

    async def until(self, test: Callable[[Gate], bool]) -> None:
        await eventually(lambda: test(self))


async def eventually(test: Callable[[], bool]) -> None:
    """Waits until `test()` holds; a hang guard, never a timing assertion."""
    with anyio.fail_after(GUARD):
        for _ in itertools.count():
            if test():
                return
            await anyio.sleep(0.005)


def call(id_: str, name: str) -> ToolCall:
    return {"id": id_, "name": name, "arguments": {}}


async def drained(limiter: anyio.CapacityLimiter) -> None:
    await eventually(lambda: limiter.borrowed_tokens == 0)


async def test_a_sync_handler_times_out_while_its_thread_still_runs() -> None:
    gate = Gate()
    tools = ToolManager()
    tools.add(Tool(name="blocked", execute=gate))
    result = await tools.execute(call("1", "blocked"), timeout=0.05)
    assert result == {
        "id": "1",
        "name": "blocked",
        "success": False,
        "error": "tool timed out after 50 ms",
    }
    assert gate.left == 0
    gate.release.set()
    await gate.until(lambda g: g.left == 1)
    await drained(tool_thread_limiter())


async def test_a_tool_decorated_sync_function_times_out_too() -> None:
    gate = Gate()

    @tool
    def blocked() -> str:
        """Wait for the gate."""
        return gate()

    tools = ToolManager()
    tools.add(blocked)
    result = await tools.execute(call("1", "blocked"), timeout=0.05)
    assert result["success"] is False
    assert gate.left == 0
    gate.release.set()
    await gate.until(lambda g: g.left == 1)


async def test_a_batch_does_not_wait_for_its_slowest_sync_handler() -> None:
    gate = Gate()
    tools = ToolManager()
    tools.add([Tool(name="blocked", execute=gate), Tool(name="quick", execute=lambda: "done")])
    results = await tools.execute([call("1", "blocked"), call("2", "quick")], timeout=0.05)
    assert [result["success"] for result in results] == [False, True]
    assert results[1] == {"id": "2", "name": "quick", "success": True, "value": "done"}
    assert gate.left == 0
    gate.release.set()
    await gate.until(lambda g: g.left == 1)


async def test_abandoned_threads_keep_their_place_until_they_end() -> None:
    gate = Gate()
    limiter = tool_thread_limiter()
    assert limiter.total_tokens == TOOL_THREAD_LIMIT
    limiter.total_tokens = 2
    try:
        tools = ToolManager()
        tools.add(Tool(name="blocked", execute=gate))
        results = await tools.execute([call(str(i), "blocked") for i in range(3)], timeout=0.1)
        assert [result["success"] for result in results] == [False, False, False]
        assert gate.entered == 2
        assert limiter.borrowed_tokens == 2
        gate.release.set()
        await gate.until(lambda g: g.left == 2)
        await drained(limiter)
    finally:
        limiter.total_tokens = TOOL_THREAD_LIMIT


async def test_a_cancelled_sync_call_raises_at_once() -> None:
    gate = Gate()
    blocked = Tool(name="blocked", execute=gate)
    with anyio.move_on_after(0.05) as scope:
        await blocked.execute({})
    assert scope.cancelled_caught
    assert gate.left == 0
    gate.release.set()
    await gate.until(lambda g: g.left == 1)


async def test_blocked_sync_tools_do_not_delay_the_database() -> None:
    gate = Gate()
    tools = ToolManager()
    tools.add(Tool(name="blocked", execute=gate))
    database = create_database(tables={"items": {"name": "string"}})
    items = database.table("items")
    await items.add({"name": "a"})
    calls = [call(str(i), "blocked") for i in range(TOOL_THREAD_LIMIT + 5)]
    async with anyio.create_task_group() as group:
        group.start_soon(tools.execute, calls)
        await gate.until(lambda g: g.inside == TOOL_THREAD_LIMIT)
        with anyio.fail_after(GUARD / 2):
            assert await items.count() == 1
        assert gate.left == 0
        gate.release.set()
    await database.close()


async def test_the_database_has_its_own_limiter() -> None:
    assert database_thread_limiter().total_tokens == DATABASE_THREAD_LIMIT
    assert database_thread_limiter() is not tool_thread_limiter()
    assert database_thread_limiter() is not anyio.to_thread.current_default_thread_limiter()
    release = threading.Event()
    default = anyio.to_thread.current_default_thread_limiter()
    database = create_database(tables={"items": {"name": "string"}})
    items = database.table("items")
    async with anyio.create_task_group() as group:
        for _ in range(int(default.total_tokens)):
            group.start_soon(anyio.to_thread.run_sync, release.wait, GUARD)
        await eventually(lambda: default.borrowed_tokens >= default.total_tokens)
        with anyio.fail_after(GUARD / 2):
            await items.add({"name": "a"})
            assert await items.count() == 1
        release.set()
    await database.close()


async def test_a_handler_without_parameters_is_called_with_none() -> None:
    tools = ToolManager()
    tools.add([Tool(name="now", execute=lambda: 42), Tool(name="later", execute=_later)])
    results = await tools.execute([call("1", "now"), {**call("2", "later"), "caller": "x"}])
    assert [result.get("value") for result in results] == [42, 43]
    assert await Tool(name="now", execute=lambda: 42).execute({"ignored": 1}, "caller") == 42


async def _later() -> int:
    return 43
