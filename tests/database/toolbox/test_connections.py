"""Every SQLite connection the database tool opens is closed by the tool's owner, never left to
the garbage collector (which, from Python 3.13, says so with a `ResourceWarning`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkestrel.database import create_sqlite_factory
from orkestrel.toolbox import DatabaseTool, create_database_tool, create_memory_definition_store
from support.sqlite_ledger import SQLiteLedger

pytestmark = pytest.mark.anyio

ITEMS = {"items": {"columns": {"n": "integer"}}}


async def fill(tool: DatabaseTool, ids: list[str], driver: str = "memory") -> None:
    for id in ids:
        await tool.execute({"operation": "create", "id": id, "driver": driver, "tables": ITEMS})
        await tool.execute({"operation": "add", "id": id, "table": "items", "row": {"n": 1}})


async def test_closing_a_default_tool_closes_every_database_it_opened(
    sqlite_ledger: SQLiteLedger,
) -> None:
    tool = create_database_tool()
    await fill(tool, ["a", "b", "c"])
    assert len(sqlite_ledger.left_open()) == 3
    await tool.close()
    assert sqlite_ledger.left_open() == []
    assert len(sqlite_ledger.connections) == 3


async def test_a_tool_in_async_with_closes_its_databases_at_the_end(
    sqlite_ledger: SQLiteLedger,
) -> None:
    async with create_database_tool() as tool:
        await fill(tool, ["a", "b"])
        assert len(sqlite_ledger.left_open()) == 2
    assert sqlite_ledger.left_open() == []


async def test_a_readonly_tool_over_sqlite_files_closes_the_files_it_read(
    tmp_path: Path, sqlite_ledger: SQLiteLedger
) -> None:
    store = create_memory_definition_store()
    drivers = {"sqlite": create_sqlite_factory(tmp_path)}
    async with create_database_tool(store=store, drivers=drivers) as writer:
        await fill(writer, ["shop", "depot"], driver="sqlite")
    reader = create_database_tool(store=store, drivers=drivers, readonly=True)
    for id in ("shop", "depot"):
        answer = await reader.execute({"operation": "count", "id": id, "table": "items"})
        assert answer == {"count": 1}
    assert len(sqlite_ledger.left_open()) == 2
    await reader.close()
    assert sqlite_ledger.left_open() == []


async def test_a_closed_tool_opens_a_stored_database_again_on_the_next_call(
    tmp_path: Path, sqlite_ledger: SQLiteLedger
) -> None:
    drivers = {"sqlite": create_sqlite_factory(tmp_path)}
    tool = create_database_tool(store=create_memory_definition_store(), drivers=drivers)
    await fill(tool, ["shop"], driver="sqlite")
    await tool.close()
    answer = await tool.execute({"operation": "count", "id": "shop", "table": "items"})
    assert answer == {"count": 1}
    await tool.close()
    assert sqlite_ledger.left_open() == []
