"""Row and byte caps, the readonly gate and timeouts of the database tool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import (
    DatabaseError,
    create_database,
    create_sqlite_driver,
    create_sqlite_factory,
)
from orkestrel.toolbox import (
    DATABASE_TOOL_MUTATIONS,
    DatabaseResolver,
    ToolboxError,
    create_database_tool,
    create_memory_definition_store,
    expand_tables,
)
from orkestrel.toolbox.database.helpers import build_driver

from .conftest import Setup

pytestmark = pytest.mark.anyio

TABLES = {"items": {"columns": {"n": "integer", "text": {"primitive": "string", "optional": True}}}}


async def filled(setup: Setup, count: int, **options: Any) -> Any:
    tool = setup.tool(**options)
    await tool.execute(
        {"operation": "create", "id": setup.id, "driver": setup.driver, "tables": TABLES}
    )
    rows = [{"id": f"r{i:04}", "n": i, "text": "é" * 20} for i in range(count)]
    if rows:
        await tool.execute({"operation": "add", "id": setup.id, "table": "items", "row": rows})
    return tool


def records(setup: Setup, query: dict[str, Any] | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"operation": "records", "id": setup.id, "table": "items"}
    if query is not None:
        args["query"] = query
    return args


@pytest.mark.parametrize(("stored", "truncated"), [(5, False), (6, True), (4, False)])
async def test_truncation_exactly_at_the_row_cap_and_one_over(
    setup: Setup, stored: int, truncated: bool
) -> None:
    tool = await filled(setup, stored, limit=5)
    answer = await tool.execute(records(setup))
    assert answer["truncated"] is truncated
    assert answer["count"] == len(answer["rows"]) == min(stored, 5)
    assert answer["limit"] == 5


async def test_a_callers_limit_only_lowers_the_cap(setup: Setup) -> None:
    tool = await filled(setup, 8, limit=5)
    assert (await tool.execute(records(setup, {"limit": 3})))["count"] == 3
    higher = await tool.execute(records(setup, {"limit": 50}))
    assert (higher["count"], higher["limit"], higher["truncated"]) == (5, 5, True)
    exact = await tool.execute(records(setup, {"limit": 8, "offset": 3}))
    assert (exact["count"], exact["truncated"]) == (5, False)
    zero = await tool.execute(records(setup, {"limit": 0}))
    assert (zero["rows"], zero["truncated"], zero["limit"]) == ([], True, 0)


async def test_the_byte_cap_bounds_every_answer(setup: Setup) -> None:
    database = create_database(
        tables=expand_tables(TABLES), driver=build_driver(setup.drivers[setup.driver], setup.id)
    )
    await database.table("items").add(
        [{"id": f"r{i:04}", "n": i, "text": "é" * 20} for i in range(30)]
    )
    handles = {setup.id: database}
    whole = await setup.tool(databases=handles).execute(records(setup))
    size = len(json.dumps(whole))
    exact = setup.tool(databases=handles, size=size)
    at_cap = await exact.execute(records(setup))
    assert at_cap == whole
    assert at_cap["truncated"] is False
    one_under = setup.tool(databases=handles, size=size - 1)
    cut = await one_under.execute(records(setup))
    assert cut["truncated"] is True
    assert cut["count"] == 29
    assert cut["rows"] == whole["rows"][:29]
    assert len(json.dumps(cut)) <= size - 1
    tiny = setup.tool(databases=handles, size=256)
    small = await tiny.execute(records(setup))
    assert len(json.dumps(small)) <= 256
    assert small["truncated"] is True
    assert 0 < small["count"] < 30


async def test_a_row_larger_than_the_byte_cap_is_left_for_get(setup: Setup) -> None:
    tool = await filled(setup, 0, size=1024)
    big = {"id": "big", "n": 1, "text": "x" * 5000}
    await tool.execute({"operation": "add", "id": setup.id, "table": "items", "row": big})
    answer = await tool.execute(records(setup))
    assert answer == {"rows": [], "count": 0, "truncated": True, "limit": 1000}
    got = await tool.execute({"operation": "get", "id": setup.id, "table": "items", "key": "big"})
    assert got == {"row": big}


async def test_readonly_refuses_every_mutation_before_touching_anything(setup: Setup) -> None:
    writer = await filled(setup, 2)
    reader = setup.tool(readonly=True, databases={})
    calls = {
        "create": {"id": "new", "tables": {}},
        "add": {"id": "missing", "table": "t", "row": {}},
        "set": {"id": "missing", "table": "t", "row": {}},
        "update": {"id": "missing", "table": "t", "key": "a", "changes": {}},
        "remove": {"id": "missing", "table": "t", "key": "a"},
        "destroy": {"id": "missing"},
    }
    assert set(calls) == set(DATABASE_TOOL_MUTATIONS)
    for operation, args in calls.items():
        with pytest.raises(ToolboxError) as caught:
            await reader.execute({"operation": operation, **args})
        assert caught.value.code == "TOOL"
        assert caught.value.context == {"operation": operation}
    assert (await writer.execute(records(setup)))["count"] == 2


async def test_a_readonly_tool_reads_stored_databases_and_its_engine_refuses_writes(
    tmp_path: Path,
) -> None:
    store = create_memory_definition_store()
    drivers = {"sqlite": create_sqlite_factory(tmp_path)}
    resolver = DatabaseResolver(None, drivers, None, store)
    writer = create_database_tool(resolver=resolver)
    await writer.execute(
        {"operation": "create", "id": "shop", "driver": "sqlite", "tables": TABLES}
    )
    await writer.execute(
        {"operation": "add", "id": "shop", "table": "items", "row": {"id": "a", "n": 1}}
    )
    await resolver.close()
    reader = create_database_tool(store=store, drivers=drivers, readonly=True)
    answer = await reader.execute({"operation": "records", "id": "shop", "table": "items"})
    assert answer["rows"] == [{"id": "a", "n": 1}]
    assert await reader.execute({"operation": "count", "id": "shop", "table": "items"}) == {
        "count": 1
    }
    await reader.execute({"operation": "tables", "id": "shop"})
    await reader.close()
    engine = create_database(
        tables=expand_tables(TABLES),
        driver=create_sqlite_driver(tmp_path / "shop.sqlite3"),
        readonly=True,
    )
    with pytest.raises(DatabaseError) as caught:
        await engine.table("items").add({"id": "b", "n": 2})
    assert caught.value.code == "DRIVER"
    assert caught.value.context is not None
    assert caught.value.context["readonly"] is True
    assert await engine.table("items").keys() == ["a"]
    await engine.close()


def get(setup: Setup, key: Any) -> dict[str, Any]:
    return {"operation": "get", "id": setup.id, "table": "items", "key": key}


async def stocked(setup: Setup, *rows: dict[str, Any]) -> dict[str, Any]:
    """One open database holding `rows`, for tools with different caps to read."""
    database = create_database(
        tables=expand_tables(TABLES), driver=build_driver(setup.drivers[setup.driver], setup.id)
    )
    await database.table("items").add(list(rows))
    return {setup.id: database}


def items(count: int) -> list[dict[str, Any]]:
    return [{"id": f"r{i:04}", "n": i, "text": "é" * 20} for i in range(count)]


async def test_a_many_key_get_over_the_byte_cap_is_refused_naming_the_cap(setup: Setup) -> None:
    handles = await stocked(setup, *items(30))
    keys = [f"r{i:04}" for i in range(30)]
    whole = await setup.tool(databases=handles).execute(get(setup, keys))
    tool = setup.tool(databases=handles, size=1024)
    with pytest.raises(ToolboxError) as refused:
        await tool.execute(get(setup, keys))
    fitting = await tool.execute(get(setup, keys[:5]))
    assert len(json.dumps(whole)) > 1024
    assert str(refused.value) == (
        "get answer is over the database tool's size cap of 1024 bytes of JSON (size); "
        "ask for fewer keys"
    )
    assert (refused.value.code, refused.value.context) == (
        "TOOL",
        {"operation": "get", "limit": 1024, "option": "size"},
    )
    assert fitting == {"rows": whole["rows"][:5]}


async def test_a_get_answer_exactly_at_the_byte_cap_is_answered(setup: Setup) -> None:
    handles = await stocked(setup, *items(6))
    keys = ["r0001", "r0003", "missing", "r0001", "r0005"]
    whole = await setup.tool(databases=handles).execute(get(setup, keys))
    size = len(json.dumps(whole))
    assert await setup.tool(databases=handles, size=size).execute(get(setup, keys)) == whole
    with pytest.raises(ToolboxError, match=f"size cap of {size - 1} bytes"):
        await setup.tool(databases=handles, size=size - 1).execute(get(setup, keys))
    assert whole["rows"][2] is None
    assert whole["rows"][0] == whole["rows"][3]


async def test_a_key_named_again_counts_again_and_answers_a_row_of_its_own(setup: Setup) -> None:
    handles = await stocked(setup, {"id": "r0000", "n": 0, "text": "x" * 300})
    tool = setup.tool(databases=handles, size=1024)
    twice = await tool.execute(get(setup, ["r0000", "r0000"]))
    with pytest.raises(ToolboxError, match="size cap of 1024 bytes"):
        await tool.execute(get(setup, ["r0000"] * 4))
    assert twice["rows"][0] == twice["rows"][1]
    assert twice["rows"][0] is not twice["rows"][1]


async def test_a_one_row_get_answers_whatever_its_size(setup: Setup) -> None:
    big = {"id": "big", "n": 1, "text": "x" * 5000}
    tool = setup.tool(databases=await stocked(setup, big), size=1024)
    assert await tool.execute(get(setup, ["big"])) == {"rows": [big]}
    assert await tool.execute(get(setup, "big")) == {"row": big}
    with pytest.raises(ToolboxError, match="size cap of 1024 bytes"):
        await tool.execute(get(setup, ["big", "missing"]))


async def test_a_write_past_the_key_cap_answers_count_first_keys_and_truncated(
    setup: Setup,
) -> None:
    tool = await filled(setup, 0, keys=2)
    call = {"operation": "add", "id": setup.id, "table": "items"}
    rows = [{"id": f"k{index}", "n": index} for index in range(5)]
    added = await tool.execute({**call, "row": rows})
    replaced = await tool.execute({**call, "operation": "set", "row": rows})
    two = await tool.execute({**call, "row": [{"id": "a", "n": 1}, {"id": "b", "n": 2}]})
    counted = await tool.execute({"operation": "count", "id": setup.id, "table": "items"})
    assert added == {"count": 5, "keys": ["k0", "k1"], "truncated": True}
    assert replaced == added
    assert two == {"keys": ["a", "b"]}
    assert counted == {"count": 7}


def test_a_negative_key_cap_is_refused() -> None:
    with pytest.raises(ToolboxError, match="keys"):
        create_database_tool(keys=-1)
