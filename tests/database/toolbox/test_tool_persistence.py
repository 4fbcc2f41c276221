"""A definition store plus a durable driver gives a new process the same database back."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.database import (
    POSTGRES_SCHEMA_PREFIX,
    create_postgres_factory,
    create_sqlite_driver,
    create_sqlite_factory,
)
from orkestrel.toolbox import (
    DatabaseResolver,
    create_database_definition_store,
    create_database_tool,
)

from ..conftest import drop_schema

pytestmark = pytest.mark.anyio

TABLES = {
    "products": {
        "columns": {
            "name": "string",
            "price": "number",
            "note": {"primitive": "string", "optional": True},
        }
    }
}
ROWS = [
    {"id": "a", "name": "Anvil", "price": 90},
    {"id": "b", "name": "Bolt", "price": 1.5, "note": "ü"},
]
READER = textwrap.dedent(
    """
    import json, sys, anyio
    from orkestrel.database import create_postgres_factory, create_sqlite_driver
    from orkestrel.database import create_sqlite_factory
    from orkestrel.toolbox import create_database_definition_store, create_database_tool

    async def main(kind, where, id):
        store = create_database_definition_store(create_sqlite_driver(sys.argv[4]))
        if kind == "sqlite":
            drivers = {"sqlite": create_sqlite_factory(where)}
        else:
            drivers = {"postgres": create_postgres_factory(where)}
        tool = create_database_tool(store=store, drivers=drivers, readonly=True)
        rows = await tool.execute({"operation": "records", "id": id, "table": "products"})
        tables = await tool.execute({"operation": "tables", "id": id})
        print(json.dumps({"records": rows, "tables": tables}))
        await tool.execute({"operation": "count", "id": id, "table": "products"})
        await store.close()

    anyio.run(main, *sys.argv[1:4])
    """
)


async def write_then_read(kind: str, where: str, drivers: dict[str, Any], tmp_path: Path) -> str:
    id = f"shop_{uuid.uuid4().hex[:10]}"
    definitions = tmp_path / "definitions.sqlite3"
    store = create_database_definition_store(create_sqlite_driver(definitions))
    resolver = DatabaseResolver(None, drivers, None, store)
    tool = create_database_tool(resolver=resolver)
    await tool.execute(
        {"operation": "create", "id": id, "driver": kind, "tables": TABLES, "version": 2}
    )
    await tool.execute({"operation": "add", "id": id, "table": "products", "row": ROWS})
    await tool.execute({"operation": "count", "id": id, "table": "products"})
    stored = await store.get(id)
    assert stored == {"id": id, "driver": kind, "tables": TABLES, "version": 2}
    live = await tool.execute({"operation": "tables", "id": id})
    await resolver.close()
    await store.close()
    done = await anyio.to_thread.run_sync(reader, kind, where, id, str(definitions))
    answer = json.loads(done)
    assert answer["records"] == {"rows": ROWS, "count": 2, "truncated": False, "limit": 1000}
    assert answer["tables"] == live
    return id


def reader(kind: str, where: str, id: str, definitions: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", READER, kind, where, id, definitions],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout


async def test_sqlite_databases_come_back_in_a_new_process(tmp_path: Path) -> None:
    directory = tmp_path / "dbs"
    id = await write_then_read(
        "sqlite", str(directory), {"sqlite": create_sqlite_factory(directory)}, tmp_path
    )
    assert [path.name async for path in anyio.Path(directory).glob("*.sqlite3")] == [
        f"{id}.sqlite3"
    ]


async def test_postgres_databases_come_back_in_a_new_process(
    tmp_path: Path, postgres_dsn: str
) -> None:
    id = await write_then_read(
        "postgres", postgres_dsn, {"postgres": create_postgres_factory(postgres_dsn)}, tmp_path
    )
    drop_schema(postgres_dsn, POSTGRES_SCHEMA_PREFIX + id)
