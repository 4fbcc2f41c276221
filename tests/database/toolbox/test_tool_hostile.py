"""Hostile input through the tool: a typed error or a correct answer, and the data intact."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.database import (
    POSTGRES_SCHEMA_PREFIX,
    DatabaseError,
    create_postgres_factory,
    create_sqlite_factory,
)
from orkestrel.toolbox import ToolboxError, create_database_tool

from ..conftest import drop_schema
from .conftest import Setup

pytestmark = pytest.mark.anyio

EVIL = '"; DROP TABLE x; --'


async def evil_tool(setup: Setup) -> Any:
    tool = setup.tool()
    tables = {
        "x": {"columns": {"v": "string"}},
        EVIL: {"columns": {EVIL: "string", "it's": {"primitive": "string", "optional": True}}},
    }
    await tool.execute(
        {"operation": "create", "id": setup.id, "driver": setup.driver, "tables": tables}
    )
    await tool.execute(
        {"operation": "add", "id": setup.id, "table": "x", "row": {"id": "keep", "v": "safe"}}
    )
    return tool


async def intact(tool: Any, setup: Setup) -> None:
    answer = await tool.execute({"operation": "records", "id": setup.id, "table": "x"})
    assert answer["rows"] == [{"id": "keep", "v": "safe"}]


async def outcome(tool: Any, args: dict[str, Any]) -> tuple[str, str | None]:
    try:
        await tool.execute(args)
    except ToolboxError as error:
        return error.code, (error.context or {}).get("code")
    return "ok", None


async def test_metacharacters_everywhere(setup: Setup) -> None:
    tool = await evil_tool(setup)
    base = {"id": setup.id, "table": EVIL}
    row = {"id": EVIL, EVIL: "'; DELETE FROM x; --", "it's": "%_*?\\"}
    assert await tool.execute({**base, "operation": "add", "row": row}) == {"key": EVIL}
    for operator, value in (
        ("equals", row[EVIL]),
        ("starts", "';"),
        ("like", "%delete%"),
        ("glob", "*x;*"),
    ):
        query = {"conditions": [{"column": EVIL, "operator": operator, "values": [value]}]}
        answer = await tool.execute({**base, "operation": "records", "query": query})
        assert answer["rows"] == [row], operator
    assert await tool.execute({**base, "operation": "get", "key": EVIL}) == {"row": row}
    await intact(tool, setup)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            {"conditions": [{"column": EVIL, "operator": "like", "values": ["%" * 10_000]}]},
            ("DATABASE", "VALIDATION"),
        ),
        (
            {"conditions": [{"column": "nope", "operator": "equals", "values": [1]}]},
            ("DATABASE", "VALIDATION"),
        ),
        ({"conditions": [{"column": EVIL, "operator": "drop", "values": [1]}]}, ("TOOL", None)),
        (
            {"conditions": [{"column": EVIL, "operator": "equals", "values": ["\x00"]}]},
            ("DATABASE", "VALIDATION"),
        ),
        (
            {"conditions": [{"column": EVIL, "operator": "equals", "values": ["\ud800"]}]},
            ("DATABASE", "VALIDATION"),
        ),
        ({"limit": -1}, ("TOOL", None)),
        ({"limit": 0.5}, ("TOOL", None)),
        ({"offset": -3}, ("TOOL", None)),
        ({"offset": 2**80}, ("ok", None)),
        ({"limit": 2**80}, ("ok", None)),
    ],
)
async def test_hostile_queries(
    setup: Setup, query: dict[str, Any], expected: tuple[str, str | None]
) -> None:
    tool = await evil_tool(setup)
    args = {"operation": "records", "id": setup.id, "table": EVIL, "query": query}
    assert await outcome(tool, args) == expected
    await intact(tool, setup)


async def test_huge_values_and_deep_nesting(setup: Setup) -> None:
    tool = await evil_tool(setup)
    base = {"id": setup.id, "table": EVIL}
    big = "é" * 1_000_000
    assert await tool.execute({**base, "operation": "add", "row": {"id": "big", EVIL: big}}) == {
        "key": "big"
    }
    assert (await tool.execute({**base, "operation": "get", "key": "big"}))["row"][EVIL] == big
    answer = await tool.execute({**base, "operation": "records"})
    assert (answer["rows"], answer["truncated"]) == ([], True)
    deep: Any = "leaf"
    for _ in range(100_000):
        deep = [deep]
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    cases = [
        (deep, ("DATABASE", "VALIDATION")),
        (cyclic, ("TOOL", None)),
        (object(), ("TOOL", None)),
        (float("inf"), ("TOOL", None)),
        ({"nested": deep}, ("DATABASE", "VALIDATION")),
    ]
    for value, expected in cases:
        args = {**base, "operation": "add", "row": {"id": "d", EVIL: value}}
        assert await outcome(tool, args) == expected
    assert await tool.execute({**base, "operation": "count"}) == {"count": 1}
    await intact(tool, setup)


@pytest.mark.parametrize("id", ["../../escape", "..", "a/b\\c", "CON", "x" * 5000, "ü😀"])
async def test_ids_never_leave_the_sqlite_directory(tmp_path: Path, id: str) -> None:
    directory = tmp_path / "dbs"
    tool = create_database_tool(drivers={"sqlite": create_sqlite_factory(directory)})
    tables = {"t": {"columns": {"v": "string"}}}
    await tool.execute({"operation": "create", "id": id, "driver": "sqlite", "tables": tables})
    await tool.execute({"operation": "add", "id": id, "table": "t", "row": {"id": "1", "v": id}})
    assert await tool.execute({"operation": "get", "id": id, "table": "t", "key": "1"}) == {
        "row": {"id": "1", "v": id}
    }
    files = [path async for path in anyio.Path(tmp_path).rglob("*") if await path.is_file()]
    assert files
    assert all(directory in Path(path).parents for path in files)
    await tool.execute({"operation": "destroy", "id": id})
    assert [path async for path in anyio.Path(tmp_path).rglob("*") if await path.is_file()] == []


async def test_postgres_refuses_ids_that_cannot_name_a_schema(postgres_dsn: str) -> None:
    tool = create_database_tool(drivers={"postgres": create_postgres_factory(postgres_dsn)})
    for id in ("x" * 64, "pg_catalog", "bad\x01id"):
        args = {"operation": "create", "id": id, "driver": "postgres", "tables": {}}
        assert await outcome(tool, args) == ("DATABASE", "VALIDATION")


def _psql(dsn: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as connection:
        cursor = connection.execute(sql, params or None)
        return cursor.fetchall() if cursor.description else []


async def test_a_pre_existing_public_users_table_stays_untouched_and_unreadable(
    postgres_dsn: str,
) -> None:
    # A uniquely named `public.users_…`, so a real `public.users` of the server is never touched.
    users = f"users_{uuid.uuid4().hex[:8]}"
    _psql(postgres_dsn, f'CREATE TABLE public."{users}" (id text PRIMARY KEY, secret text)')
    _psql(postgres_dsn, f"INSERT INTO public.\"{users}\" VALUES ('1', 'hunter2'), ('2', 'pw')")
    tool = create_database_tool(drivers={"postgres": create_postgres_factory(postgres_dsn)})
    tables = {users: {"columns": {"secret": "string"}}}
    try:
        for id in ("public", "PUBLIC", "information_schema", "pg_catalog", "pg_temp"):
            create = {"operation": "create", "id": id, "driver": "postgres", "tables": tables}
            assert await outcome(tool, create) == ("DATABASE", "VALIDATION"), id
            for operation in ("records", "remove", "count"):
                args = {"operation": operation, "id": id, "table": users, "key": "1"}
                assert await outcome(tool, args) == ("TOOL", None)
        create = {"operation": "create", "id": "public_", "driver": "postgres", "tables": tables}
        assert await outcome(tool, create) == ("ok", None)
        answer = await tool.execute({"operation": "records", "id": "public_", "table": users})
        assert answer["rows"] == []
        assert await tool.execute(
            {"operation": "remove", "id": "public_", "table": users, "key": ["1", "2"]}
        ) == {"removed": [False, False]}
        assert await tool.execute({"operation": "destroy", "id": "public_"}) == {
            "id": "public_",
            "destroyed": True,
        }
        assert _psql(postgres_dsn, f'SELECT id, secret FROM public."{users}" ORDER BY id') == [
            ("1", "hunter2"),
            ("2", "pw"),
        ]
        assert _psql(
            postgres_dsn,
            "SELECT table_schema FROM information_schema.tables WHERE table_name = %s",
            users,
        ) == [("public",)]
        bare = create_postgres_factory(postgres_dsn, prefix="")
        for id in ("public", "information_schema", "pg_toast"):
            with pytest.raises(DatabaseError, match="reserved") as refused:
                bare(id)
            assert refused.value.code == "VALIDATION"
    finally:
        _psql(postgres_dsn, f'DROP TABLE IF EXISTS public."{users}"')
        drop_schema(postgres_dsn, f"{POSTGRES_SCHEMA_PREFIX}public_")


async def test_schemas_are_namespaced_under_the_configurable_prefix(postgres_dsn: str) -> None:
    id = f"shop_{uuid.uuid4().hex[:8]}"
    tables = {"items": {"columns": {"n": "integer"}}}
    for prefix in (POSTGRES_SCHEMA_PREFIX, "tenant7_"):
        tool = create_database_tool(
            drivers={"postgres": create_postgres_factory(postgres_dsn, prefix=prefix)}
        )
        try:
            await tool.execute(
                {"operation": "create", "id": id, "driver": "postgres", "tables": tables}
            )
            found = _psql(
                postgres_dsn,
                "SELECT table_schema FROM information_schema.tables WHERE table_name = 'items' "
                "AND table_schema LIKE %s",
                f"%{id}",
            )
            assert found == [(f"{prefix}{id}",)]
            await tool.execute({"operation": "destroy", "id": id})
            gone = _psql(
                postgres_dsn,
                "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s",
                f"{prefix}{id}",
            )
            assert gone == []
        finally:
            drop_schema(postgres_dsn, f"{prefix}{id}")
    assert POSTGRES_SCHEMA_PREFIX == "orkestrel_"


class LyingCall(dict[str, Any]):
    """Stores one operation and answers `destroy` to every read through its methods."""

    def __getitem__(self, key: str) -> Any:
        return "destroy" if key == "operation" else super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (runs the lie)


class RaisingCall(dict[str, Any]):
    """Stores a call and raises from every method a reader could use."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem")

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError("get")


async def test_a_lying_dict_subclass_cannot_turn_a_read_into_a_destroy(setup: Setup) -> None:
    tool = await evil_tool(setup)
    plain = await tool.execute({"operation": "tables", "id": setup.id})
    assert await tool.execute(LyingCall(operation="tables", id=setup.id)) == plain
    await intact(tool, setup)


async def test_a_dict_subclass_whose_methods_raise_is_read_from_its_storage(
    setup: Setup,
) -> None:
    tool = await evil_tool(setup)
    call = RaisingCall(operation="records", id=setup.id, table="x")
    assert (await tool.execute(call))["rows"] == [{"id": "keep", "v": "safe"}]
    assert await outcome(tool, RaisingCall(operation="records", id=setup.id)) == ("TOOL", None)
    assert await outcome(tool, RaisingCall(operation="add", id=setup.id, table="x")) == (
        "TOOL",
        None,
    )
    await intact(tool, setup)
