"""The tool's `timeout` really interrupts slow work, which leaves nothing behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from orkestrel.database import (
    create_database,
    create_memory_driver,
    create_sqlite_factory,
    database_thread_limiter,
)
from orkestrel.tool import create_tool_manager
from orkestrel.toolbox import ToolboxError, create_database_tool, expand_tables
from orkestrel.toolbox.database.helpers import build_driver
from support.bounded import bounded, watchdogs_left

from .conftest import Setup

pytestmark = pytest.mark.anyio

TABLES = {"items": {"columns": {"n": "integer", "text": "string"}}}


async def prepared(setup: Setup, timeout: int) -> tuple[Any, Any]:
    """A tool with the timeout and a plain one, over the same live database."""
    factory = setup.drivers[setup.driver]
    database = create_database(tables=expand_tables(TABLES), driver=build_driver(factory, setup.id))
    await database.open()
    handles = {setup.id: database}
    return setup.tool(databases=handles, timeout_ms=timeout), setup.tool(databases=handles)


async def test_a_timed_out_batch_write_is_aborted_and_rolled_back(setup: Setup) -> None:
    timed, plain = await prepared(setup, 1)
    rows = [{"id": f"r{i:06}", "n": i, "text": "x" * 40} for i in range(60_000)]
    with pytest.raises(ToolboxError) as caught:
        await timed.execute({"operation": "add", "id": setup.id, "table": "items", "row": rows})
    assert caught.value.code == "DATABASE"
    assert caught.value.context is not None
    assert caught.value.context["code"] == "ABORTED"
    assert await plain.execute({"operation": "count", "id": setup.id, "table": "items"}) == {
        "count": 0
    }
    small = {"operation": "add", "id": setup.id, "table": "items", "row": {"n": 1, "text": "ok"}}
    assert "key" in await plain.execute(small)


@pytest.mark.parametrize("engine", ["memory", "sqlite"])
async def test_a_timed_out_read_is_interrupted(setup: Setup) -> None:
    timed, plain = await prepared(setup, 300)
    rows = [{"id": f"r{i:03}", "n": i, "text": "a" * 100_000} for i in range(30)]
    await plain.execute({"operation": "add", "id": setup.id, "table": "items", "row": rows})
    pattern = "%" + "_" * 1000 + "b%"
    query = {"conditions": [{"column": "text", "operator": "like", "values": [pattern]}]}
    with pytest.raises(ToolboxError) as caught:
        await timed.execute(
            {"operation": "records", "id": setup.id, "table": "items", "query": query}
        )
    assert caught.value.context is not None
    assert caught.value.context["code"] == "ABORTED"
    assert await plain.execute({"operation": "count", "id": setup.id, "table": "items"}) == {
        "count": 30
    }


@pytest.mark.parametrize("driver", ["memory", "sqlite"])
def test_a_database_add_with_a_tiny_tool_manager_timeout_always_returns(
    driver: str, tmp_path: Path
) -> None:
    drivers = {"memory": create_memory_driver, "sqlite": create_sqlite_factory(tmp_path)}
    manager = create_tool_manager()
    manager.add(create_database_tool(drivers=drivers))
    id = "storm"

    async def storm() -> tuple[list[Any], int, int]:
        create = {"operation": "create", "id": id, "driver": driver, "tables": TABLES}
        assert (await manager.execute({"id": "c", "name": "database", "arguments": create}))[
            "success"
        ]
        results = []
        for index in range(300):
            row = {"n": index, "text": "t"}
            add = {"operation": "add", "id": id, "table": "items", "row": row}
            call = {"id": str(index), "name": "database", "arguments": add}
            with anyio.fail_after(30):
                results.append(await manager.execute(call, timeout=0.0001))
        count = {"operation": "count", "id": id, "table": "items"}
        with anyio.fail_after(30):
            counted = await manager.execute({"id": "n", "name": "database", "arguments": count})
        borrowed = (
            anyio.to_thread.current_default_thread_limiter().borrowed_tokens
            + database_thread_limiter().borrowed_tokens
        )
        destroy = {"operation": "destroy", "id": id}
        await manager.execute({"id": "d", "name": "database", "arguments": destroy})
        return results, counted["value"]["count"], borrowed

    results, counted, borrowed = bounded(storm, 120, "asyncio")
    failures = {result["error"] for result in results if not result["success"]}
    assert failures <= {"tool timed out after 0.1 ms"}
    assert counted >= sum(1 for result in results if result["success"])
    assert borrowed == 0
    assert watchdogs_left() == []
