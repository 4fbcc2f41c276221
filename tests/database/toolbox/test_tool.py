"""Every operation of the database tool, with its exact result shape, on every engine."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from orkestrel.contract import create_contract
from orkestrel.database import create_database, create_sqlite_driver
from orkestrel.tool import create_tool_manager
from orkestrel.tool.flatten import flatten_parameters
from orkestrel.toolbox import (
    DATABASE_TOOL_DESCRIPTION,
    DATABASE_TOOL_LIMIT,
    DATABASE_TOOL_MUTATIONS,
    DATABASE_TOOL_NAME,
    DATABASE_TOOL_SUMMARY,
    DatabaseDefinitionStore,
    ToolboxError,
    create_database_definition_store,
    create_database_tool,
    create_memory_definition_store,
    database_tool_shape,
)
from orkestrel.toolbox.database.database_store import DEFINITIONS_COLUMNS, DEFINITIONS_TABLE

from .conftest import Setup

pytestmark = pytest.mark.anyio

TABLES = {
    "products": {
        "columns": {
            "sku": "string",
            "name": "string",
            "price": "number",
            "stock": {"primitive": "integer", "optional": True},
            "sale": {"primitive": "boolean", "optional": True},
        }
    },
    "notes": {"columns": {"text": "string"}},
}


async def created(setup: Setup, **options: Any) -> Any:
    tool = setup.tool(**options)
    answer = await tool.execute(
        {
            "operation": "create",
            "id": setup.id,
            "driver": setup.driver,
            "tables": TABLES,
            "primary": {"products": "sku"},
            "indexes": {"products": [["name"], ["price", "name"]]},
            "version": 1,
        }
    )
    assert answer == {"id": setup.id, "tables": ["products", "notes"]}
    return tool


async def failure(tool: Any, args: dict[str, Any]) -> ToolboxError:
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(args)
    return caught.value


def test_the_tool_advertises_its_contract() -> None:
    tool = create_database_tool()
    assert tool.name == DATABASE_TOOL_NAME == "database"
    assert tool.summary == DATABASE_TOOL_SUMMARY
    assert tool.description == DATABASE_TOOL_DESCRIPTION
    assert tool.parameters == flatten_parameters(create_contract(database_tool_shape).schema)
    assert DATABASE_TOOL_LIMIT == 1000
    renamed = create_database_tool(name="db", description="short")
    assert (renamed.name, renamed.description, renamed.summary) == (
        "db",
        "short",
        DATABASE_TOOL_SUMMARY.replace("describe('database')", "describe('db')"),
    )


def test_the_mutation_list_cannot_be_changed() -> None:
    assert DATABASE_TOOL_MUTATIONS == ("create", "add", "set", "update", "remove", "destroy")
    with pytest.raises((TypeError, AttributeError)):
        DATABASE_TOOL_MUTATIONS.append("records")  # type: ignore[attr-defined]


async def test_every_operation_and_its_result_shape(setup: Setup) -> None:
    tool = await created(setup)
    base = {"id": setup.id, "table": "products"}
    assert await tool.execute(
        {**base, "operation": "add", "row": {"sku": "a", "name": "Anvil", "price": 90}}
    ) == {"key": "a"}
    rows = [
        {"sku": "b", "name": "Bolt", "price": "1.5", "stock": 7},
        {"sku": "c", "name": "Cog", "price": 3, "sale": True},
    ]
    assert await tool.execute({**base, "operation": "add", "row": rows}) == {"keys": ["b", "c"]}
    assert await tool.execute({**base, "operation": "get", "key": "b"}) == {
        "row": {"sku": "b", "name": "Bolt", "price": 1.5, "stock": 7}
    }
    assert await tool.execute({**base, "operation": "get", "key": "zz"}) == {"row": None}
    got = await tool.execute({**base, "operation": "get", "key": ["c", "zz"]})
    assert got == {"rows": [{"sku": "c", "name": "Cog", "price": 3, "sale": True}, None]}
    assert await tool.execute(
        {**base, "operation": "set", "row": {"sku": "a", "name": "Anvil", "price": 80}}
    ) == {"key": "a"}
    assert await tool.execute(
        {**base, "operation": "set", "row": [{"sku": "d", "name": "Die", "price": 5}]}
    ) == {"keys": ["d"]}
    assert await tool.execute(
        {**base, "operation": "update", "key": "b", "changes": {"stock": 8}}
    ) == {"updated": True}
    assert await tool.execute(
        {**base, "operation": "update", "key": ["b", "zz"], "changes": {"sale": False}}
    ) == {"updated": [True, False]}
    query = {"conditions": [{"column": "price", "operator": "below", "values": [50]}]}
    records = await tool.execute({**base, "operation": "records", "query": query})
    assert records == {
        "rows": [
            {"sku": "b", "name": "Bolt", "price": 1.5, "stock": 8, "sale": False},
            {"sku": "c", "name": "Cog", "price": 3, "sale": True},
            {"sku": "d", "name": "Die", "price": 5},
        ],
        "count": 3,
        "truncated": False,
        "limit": 1000,
    }
    assert await tool.execute({**base, "operation": "count", "query": query}) == {"count": 3}
    assert await tool.execute({**base, "operation": "count"}) == {"count": 4}
    assert await tool.execute(
        {**base, "operation": "aggregate", "function": "sum", "column": "price"}
    ) == {"value": 89.5}
    empty = {"conditions": [{"column": "price", "operator": "above", "values": [1000]}]}
    assert await tool.execute(
        {**base, "operation": "aggregate", "function": "maximum", "column": "price", "query": empty}
    ) == {"value": None}
    assert await tool.execute({**base, "operation": "remove", "key": "d"}) == {"removed": True}
    assert await tool.execute({**base, "operation": "remove", "key": ["d", "c"]}) == {
        "removed": [False, True]
    }
    tables = await tool.execute({"operation": "tables", "id": setup.id})
    assert [(t["name"], t["primary"]) for t in tables["tables"]] == [
        ("products", "sku"),
        ("notes", "id"),
    ]
    assert tables["tables"][0]["columns"]["required"] == ["sku", "name", "price"]
    assert await tool.execute({"operation": "destroy", "id": setup.id}) == {
        "id": setup.id,
        "destroyed": True,
    }
    assert await tool.execute({"operation": "destroy", "id": setup.id}) == {
        "id": setup.id,
        "destroyed": False,
    }
    error = await failure(tool, {**base, "operation": "count"})
    assert (error.code, error.context) == ("TOOL", {"id": setup.id})


async def test_the_seed_example_through_a_tool_manager(setup: Setup) -> None:
    tools = create_tool_manager()
    tools.add(setup.tool())
    created = await tools.execute(
        {
            "id": "c1",
            "name": "database",
            "arguments": {
                "operation": "create",
                "id": setup.id,
                "driver": setup.driver,
                "tables": {
                    "products": {
                        "columns": {
                            "id": "string",
                            "name": "string",
                            "price": "number",
                            "notes": {"primitive": "string", "optional": True},
                        }
                    }
                },
                "primary": {"products": "id"},
                "indexes": {"products": [["name"], ["price", "name"]]},
                "version": 1,
            },
        }
    )
    assert created["success"]
    added = await tools.execute(
        {
            "id": "a1",
            "name": "database",
            "arguments": {
                "operation": "add",
                "id": setup.id,
                "table": "products",
                "row": {"name": "Widget", "price": 25},
            },
        }
    )
    key = added["value"]["key"]
    records = await tools.execute(
        {
            "id": "r1",
            "name": "database",
            "arguments": {
                "operation": "records",
                "id": setup.id,
                "table": "products",
                "query": {"conditions": [{"column": "price", "operator": "below", "values": [50]}]},
            },
        }
    )
    assert records["value"] == {
        "rows": [{"id": key, "name": "Widget", "price": 25}],
        "count": 1,
        "truncated": False,
        "limit": 1000,
    }


async def test_creating_twice_is_a_conflict_and_an_unknown_driver_a_tool_error(
    setup: Setup,
) -> None:
    store = create_memory_definition_store()
    tool = await created(setup, store=store)
    error = await failure(tool, {"operation": "create", "id": setup.id, "tables": {}})
    conflict = {"code": "CONFLICT", "operation": "create", "id": setup.id}
    assert (error.code, error.context) == ("DATABASE", conflict)
    assert str(error) == f"database '{setup.id}' already exists"
    again = setup.tool(store=store)
    error = await failure(again, {"operation": "create", "id": setup.id, "tables": {}})
    assert (error.code, error.context) == ("DATABASE", conflict)
    error = await failure(
        tool, {"operation": "create", "id": "other", "driver": "cloud", "tables": {}}
    )
    assert (error.code, error.context) == ("TOOL", {"id": "other", "driver": "cloud"})
    assert await store.get("other") is None


async def test_database_errors_surface_with_their_code(setup: Setup) -> None:
    tool = await created(setup)
    base = {"id": setup.id, "table": "products"}
    await tool.execute({**base, "operation": "add", "row": {"sku": "a", "name": "A", "price": 1}})
    cases = [
        (
            {**base, "operation": "add", "row": {"sku": "a", "name": "again", "price": 2}},
            "CONFLICT",
        ),
        (
            {**base, "operation": "add", "row": {"sku": "z", "name": "Z", "price": "lots"}},
            "VALIDATION",
        ),
        (
            {**base, "operation": "add", "row": {"sku": "z", "nme": "typo", "price": 1}},
            "VALIDATION",
        ),
        ({**base, "operation": "update", "key": "a", "changes": {"sku": "b"}}, "VALIDATION"),
        ({**base, "table": "missing", "operation": "count"}, "NOT_FOUND"),
        ({**base, "operation": "aggregate", "function": "sum", "column": "name"}, "VALIDATION"),
    ]
    for args, code in cases:
        error = await failure(tool, args)
        assert error.code == "DATABASE"
        assert error.context is not None
        assert error.context["code"] == code
        assert error.context["operation"] == args["operation"]
        assert error.context["id"] == setup.id
        assert error.context["table"] == args["table"]
    assert await tool.execute({**base, "operation": "count"}) == {"count": 1}


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"operation": "explode", "id": "x"},
        {"operation": "records"},
        {"operation": "records", "id": "x", "table": "t", "query": {"limit": -1}},
        {"operation": "records", "id": "x", "table": "t", "query": {"limit": 1.5}},
        {
            "operation": "records",
            "id": "x",
            "table": "t",
            "query": {"conditions": [{"column": "a", "operator": "matches", "values": []}]},
        },
        {
            "operation": "records",
            "id": "x",
            "table": "t",
            "query": {"conditions": [{"column": "a", "operator": "equals", "values": 1}]},
        },
        {"operation": "get", "id": "x", "table": "t", "key": {"a": 1}},
        {"operation": "get", "id": "x", "table": "t", "key": True},
        {"operation": "create", "id": "", "tables": {}},
        {"operation": "create", "id": "x", "tables": {"t": {"columns": {"a": "json"}}}},
        {"operation": "add", "id": "x", "table": "t", "row": "not a row"},
        {"operation": "add", "id": "x", "table": "t", "row": {"a": float("nan")}},
    ],
)
async def test_malformed_calls_are_tool_errors_that_name_the_fault(args: dict[str, Any]) -> None:
    error = await failure(create_database_tool(), args)
    assert error.code == "TOOL"
    assert error.message.startswith("malformed database call")


@pytest.mark.parametrize("timeout", [-1, 1.5, 2**53, float("nan"), True, "10"])
def test_a_bad_timeout_is_refused_at_construction(timeout: Any) -> None:
    with pytest.raises(ToolboxError) as caught:
        create_database_tool(timeout_ms=timeout)
    assert caught.value.code == "TOOL"
    assert caught.value.context == {"timeout_ms": timeout}


def test_the_timeout_names_its_unit() -> None:
    with pytest.raises(TypeError, match="timeout"):
        create_database_tool(timeout=5)  # type: ignore[call-arg]
    assert "timeout_ms" in inspect.signature(create_database_tool).parameters


@pytest.mark.parametrize(
    ("option", "value"), [("limit", -1), ("limit", 2.0), ("size", 10), ("size", None)]
)
def test_bad_caps_are_refused_at_construction(option: str, value: Any) -> None:
    if value is None:
        assert create_database_tool(size=None).name == "database"
        return
    with pytest.raises(ToolboxError):
        create_database_tool(**{option: value})


async def test_embedder_handles_are_used_and_destroyed(setup: Setup) -> None:
    database = create_database(tables={"t": {"v": "string"}})
    tool = setup.tool(databases={"mine": database})
    assert await tool.execute(
        {"operation": "add", "id": "mine", "table": "t", "row": {"id": "1", "v": "x"}}
    ) == {"key": "1"}
    assert await tool.execute({"operation": "destroy", "id": "mine"}) == {
        "id": "mine",
        "destroyed": True,
    }
    assert database.status == "closed"


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_the_tool_runs_under_trio_with_a_timeout() -> None:
    tool = create_database_tool(timeout_ms=5_000)
    tables = {"t": {"columns": {"v": "string"}}}
    await tool.execute({"operation": "create", "id": "trio", "tables": tables})
    await tool.execute(
        {"operation": "add", "id": "trio", "table": "t", "row": [{"v": "a"}, {"v": "b"}]}
    )
    answer = await tool.execute({"operation": "records", "id": "trio", "table": "t"})
    assert sorted(row["v"] for row in answer["rows"]) == ["a", "b"]
    assert await tool.execute({"operation": "destroy", "id": "trio"}) == {
        "id": "trio",
        "destroyed": True,
    }


async def test_a_failing_store_leaves_nothing_published(tmp_path: Path) -> None:
    path = tmp_path / "definitions.sqlite3"
    writer = create_database_definition_store(create_sqlite_driver(path))
    await writer.set({"id": "seed", "driver": "memory", "tables": {}})
    await writer.close()
    frozen = create_database(
        tables={DEFINITIONS_TABLE: DEFINITIONS_COLUMNS},
        driver=create_sqlite_driver(path),
        readonly=True,
    )
    store = DatabaseDefinitionStore(frozen.table(DEFINITIONS_TABLE), frozen)
    tool = create_database_tool(store=store)
    error = await failure(tool, {"operation": "create", "id": "shop", "tables": TABLES})
    assert error.code == "DATABASE"
    assert error.context is not None
    assert error.context["code"] == "DRIVER"
    error = await failure(tool, {"operation": "tables", "id": "shop"})
    assert (error.code, error.context) == ("TOOL", {"id": "shop"})
    await store.close()
