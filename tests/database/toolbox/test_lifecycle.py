"""The tool's `create` and `destroy` of an id: serialised, all or nothing, and leaving no data
behind, on every engine."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from orkestrel.database import (
    POSTGRES_SCHEMA_PREFIX,
    create_postgres_factory,
    create_sqlite_factory,
)
from orkestrel.toolbox import (
    DatabaseDefinition,
    ToolboxError,
    create_database_tool,
    create_memory_definition_store,
)

from ..conftest import drop_schema
from .conftest import Setup

pytestmark = pytest.mark.anyio

ITEMS = {"items": {"columns": {"n": "integer"}}}


def files(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.glob("*")) if folder.exists() else []


def databases(folder: Path) -> list[str]:
    """The database files in `folder`, without the `-wal` / `-shm` files an open one has."""
    return [name for name in files(folder) if not name.endswith(("-wal", "-shm"))]


def schema_exists(dsn: str, schema: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as connection:
        found = connection.execute(
            "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s", (schema,)
        ).fetchall()
    return bool(found)


def stored(setup: Setup, tmp_path: Path, dsn: str | None) -> bool:
    """Whether the database's storage exists: its file under `dbs`, or its schema; an in-memory
    database's storage goes with its handle."""
    if setup.driver == "sqlite":
        return databases(tmp_path / "dbs") == [f"{setup.id}.sqlite3"]
    if setup.driver == "postgres":
        assert dsn is not None
        return schema_exists(dsn, POSTGRES_SCHEMA_PREFIX + setup.id)
    return True


async def test_destroy_removes_the_rows_and_a_recreate_with_changed_columns_works(
    setup: Setup, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    dsn = request.getfixturevalue("postgres_dsn") if setup.driver == "postgres" else None
    store = create_memory_definition_store()
    tool = setup.tool(store=store)
    create = {"operation": "create", "id": setup.id, "driver": setup.driver}
    await tool.execute({**create, "tables": ITEMS})
    rows = [{"id": "a", "n": 1}, {"id": "b", "n": 2}]
    await tool.execute({"operation": "add", "id": setup.id, "table": "items", "row": rows})
    assert stored(setup, tmp_path, dsn)
    assert await tool.execute({"operation": "destroy", "id": setup.id}) == {
        "id": setup.id,
        "destroyed": True,
    }
    assert await store.get(setup.id) is None
    assert setup.driver == "memory" or not stored(setup, tmp_path, dsn)
    if setup.driver == "sqlite":
        assert files(tmp_path / "dbs") == []
    changed = {"items": {"columns": {"label": "string"}}}
    assert await tool.execute({**create, "tables": changed}) == {
        "id": setup.id,
        "tables": ["items"],
    }
    answer = await tool.execute({"operation": "records", "id": setup.id, "table": "items"})
    assert answer["rows"] == []
    await tool.execute(
        {"operation": "add", "id": setup.id, "table": "items", "row": {"label": "fresh"}}
    )


async def test_destroy_of_a_stored_database_no_tool_has_opened_removes_its_rows(
    setup: Setup, tmp_path: Path
) -> None:
    store = create_memory_definition_store()
    first = setup.tool(store=store)
    create = {"operation": "create", "id": setup.id, "driver": setup.driver, "tables": ITEMS}
    await first.execute(create)
    await first.execute({"operation": "add", "id": setup.id, "table": "items", "row": {"n": 1}})
    later = setup.tool(store=store)
    assert (await later.execute({"operation": "destroy", "id": setup.id}))["destroyed"] is True
    if setup.driver == "sqlite":
        assert files(tmp_path / "dbs") == []
    fresh = setup.tool(store=store)
    await fresh.execute(create)
    assert await fresh.execute({"operation": "count", "id": setup.id, "table": "items"}) == {
        "count": 0
    }


async def test_twenty_concurrent_creates_of_one_id_give_one_database_and_conflicts(
    setup: Setup, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    dsn = request.getfixturevalue("postgres_dsn") if setup.driver == "postgres" else None
    store = create_memory_definition_store()
    tool = setup.tool(store=store)
    outcomes: list[Any] = []

    async def create(index: int) -> None:
        tables = {"items": {"columns": {"n": "integer"}}, f"t{index}": {"columns": {"v": "string"}}}
        args = {"operation": "create", "id": setup.id, "driver": setup.driver, "tables": tables}
        try:
            outcomes.append(await tool.execute(args))
        except ToolboxError as error:
            outcomes.append((error.code, (error.context or {}).get("code")))

    async with anyio.create_task_group() as group:
        for index in range(20):
            group.start_soon(create, index)
    created = [outcome for outcome in outcomes if isinstance(outcome, dict)]
    assert len(created) == 1
    assert outcomes.count(("DATABASE", "CONFLICT")) == 19
    definition = await store.get(setup.id)
    assert definition is not None
    assert sorted(definition["tables"]) == sorted(created[0]["tables"])
    listed = await tool.execute({"operation": "tables", "id": setup.id})
    assert sorted(table["name"] for table in listed["tables"]) == sorted(created[0]["tables"])
    if setup.driver == "sqlite":
        assert databases(tmp_path / "dbs") == [f"{setup.id}.sqlite3"]
    if dsn is not None:
        with psycopg.connect(dsn, autocommit=True) as connection:
            tables = connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
                (POSTGRES_SCHEMA_PREFIX + setup.id,),
            ).fetchall()
        assert sorted(name for (name,) in tables) == sorted(created[0]["tables"])


class FailingStore:
    """A definition store whose writes fail, as a full disk or a lost server would."""

    def __init__(self) -> None:
        self.deleted: list[str] = []

    async def get(self, id: str) -> DatabaseDefinition | None:
        return None

    async def set(self, definition: DatabaseDefinition) -> None:
        raise OSError(28, "No space left on device")

    async def delete(self, id: str) -> None:
        self.deleted.append(id)


async def test_a_create_that_fails_at_the_definition_store_leaves_no_sqlite_file(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "dbs"
    tool = create_database_tool(
        drivers={"sqlite": create_sqlite_factory(directory)}, store=FailingStore()
    )
    with pytest.raises(OSError, match="No space left"):
        await tool.execute(
            {"operation": "create", "id": "shop", "driver": "sqlite", "tables": ITEMS}
        )
    assert files(directory) == []
    with pytest.raises(ToolboxError, match="unknown database"):
        await tool.execute({"operation": "count", "id": "shop", "table": "items"})


async def test_a_create_whose_open_fails_takes_its_definition_back(tmp_path: Path) -> None:
    directory = tmp_path / "dbs"
    drivers = {"sqlite": create_sqlite_factory(directory)}
    store = create_memory_definition_store()
    old = create_database_tool(drivers=drivers)
    await old.execute({"operation": "create", "id": "shop", "driver": "sqlite", "tables": ITEMS})
    tool = create_database_tool(drivers=drivers, store=store)
    clash = {"items": {"columns": {"n": "string"}}}
    with pytest.raises(ToolboxError) as caught:
        await tool.execute(
            {"operation": "create", "id": "shop", "driver": "sqlite", "tables": clash}
        )
    assert caught.value.context is not None
    assert caught.value.context["code"] == "MIGRATION"
    assert await store.get("shop") is None
    await old.execute({"operation": "destroy", "id": "shop"})
    assert files(directory) == []


async def test_postgres_destroy_of_one_id_leaves_other_schemas(postgres_dsn: str) -> None:
    ids = [f"keep_{uuid.uuid4().hex[:8]}", f"gone_{uuid.uuid4().hex[:8]}"]
    tool = create_database_tool(drivers={"postgres": create_postgres_factory(postgres_dsn)})
    try:
        for id in ids:
            await tool.execute(
                {"operation": "create", "id": id, "driver": "postgres", "tables": ITEMS}
            )
        await tool.execute({"operation": "destroy", "id": ids[1]})
        assert schema_exists(postgres_dsn, POSTGRES_SCHEMA_PREFIX + ids[0])
        assert not schema_exists(postgres_dsn, POSTGRES_SCHEMA_PREFIX + ids[1])
        await tool.execute({"operation": "destroy", "id": ids[0]})
        assert not schema_exists(postgres_dsn, POSTGRES_SCHEMA_PREFIX + ids[0])
    finally:
        for id in ids:
            drop_schema(postgres_dsn, POSTGRES_SCHEMA_PREFIX + id)
