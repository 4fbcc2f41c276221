"""The tool's `timeout` really interrupts slow work, which leaves nothing behind."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.database import create_database
from orkestrel.toolbox import ToolboxError, expand_tables
from orkestrel.toolbox.database.helpers import build_driver

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
