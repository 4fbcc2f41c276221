"""The database tool's reads of one statement (`records`, `count`, `aggregate`) run without
BEGIN and COMMIT, the statement being a transaction of its own, while a write runs inside its
transaction; in read-only mode PostgreSQL keeps `BEGIN READ ONLY` around every statement (a
pooled connection also serves writers, so its transaction is what makes a read read-only), and
writes are refused. Seen in what the engines run, on real SQLite files and a real PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import (
    POSTGRES_SCHEMA_PREFIX,
    DatabaseError,
    create_database,
    create_postgres_factory,
    create_postgres_pool,
    create_sqlite_factory,
)
from orkestrel.toolbox import (
    ToolboxError,
    create_database_tool,
    create_memory_definition_store,
    expand_tables,
)
from orkestrel.toolbox.database.helpers import build_driver
from support.engine_statements import Statements

from ..conftest import drop_schema

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])]

TABLES = {"items": {"columns": {"n": "integer"}}}
ROWS = [{"id": "a", "n": 1}, {"id": "b", "n": 2}]
READS = {
    "records": ({"operation": "records"}, {"rows": ROWS, "count": 2, "truncated": False}),
    "count": ({"operation": "count"}, {"count": 2}),
    "aggregate": ({"operation": "aggregate", "function": "sum", "column": "n"}, {"value": 3}),
}


@dataclass
class Engine:
    """Database ids of one engine, opened through the driver factory `drivers` holds, with the
    statements every connection runs watched."""

    name: str
    id: str
    drivers: dict[str, Any]
    statements: Statements

    def tool(self, **options: Any) -> Any:
        return create_database_tool(drivers=self.drivers, **options)

    def begin(self) -> str:
        """The statement that starts a write."""
        return "BEGIN IMMEDIATE" if self.name == "sqlite" else "BEGIN"


@pytest.fixture(params=["sqlite", "postgres", "pooled"])
async def engine(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Engine]:
    statements = Statements(tmp_path)
    statements.watch(monkeypatch)
    name, id, pool, dsn = str(request.param), f"lone_{uuid.uuid4().hex[:12]}", None, ""
    if name == "sqlite":
        factory = create_sqlite_factory(tmp_path / "dbs")
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        pool = create_postgres_pool(dsn, size=2) if name == "pooled" else None
        factory = create_postgres_factory(dsn, pool=pool)
    try:
        yield Engine(name, id, {"engine": factory}, statements)
    finally:
        if pool is not None:
            pool.close()
        statements.close()
        if dsn:
            drop_schema(dsn, POSTGRES_SCHEMA_PREFIX + id)


async def stocked(engine: Engine, **options: Any) -> Any:
    """A tool (over the definitions `store`) with database `engine.id` holding `ROWS`."""
    tool = engine.tool(store=options.pop("store", None) or create_memory_definition_store())
    create = {"operation": "create", "id": engine.id, "driver": "engine", "tables": TABLES}
    await tool.execute(create)
    await tool.execute({"operation": "add", "id": engine.id, "table": "items", "row": ROWS})
    return tool


async def test_a_lone_read_runs_without_begin_and_a_write_inside_its_transaction(
    engine: Engine,
) -> None:
    tool = await stocked(engine)
    engine.statements.take()
    seen: dict[str, list[str]] = {}
    for name, (args, answer) in READS.items():
        got = await tool.execute({**args, "id": engine.id, "table": "items"})
        assert {key: got[key] for key in answer} == answer
        seen[name] = engine.statements.take()
    row = {"id": "c", "n": 3}
    await tool.execute({"operation": "add", "id": engine.id, "table": "items", "row": row})
    seen["add"] = engine.statements.take()
    await tool.execute({"operation": "destroy", "id": engine.id})
    await tool.close()
    assert seen == {
        "records": ["SELECT"],
        "count": ["SELECT"],
        "aggregate": ["SELECT"],
        "add": [engine.begin(), "INSERT", "COMMIT"],
    }


async def test_readonly_mode_keeps_read_only_transactions_and_refuses_writes(
    engine: Engine,
) -> None:
    store = create_memory_definition_store()
    writer = await stocked(engine, store=store)
    await writer.close()
    reader = engine.tool(store=store, readonly=True)
    args = {"operation": "records", "id": engine.id, "table": "items"}
    await reader.execute(args)  # opens the database: its checks run first
    engine.statements.take()
    assert (await reader.execute(args))["rows"] == ROWS
    read = engine.statements.take()
    with pytest.raises(ToolboxError) as refused:
        await reader.execute({"operation": "add", "id": engine.id, "table": "items", "row": {}})
    untouched = engine.statements.take()
    await reader.close()
    sealed = create_database(
        tables=expand_tables(TABLES),
        driver=build_driver(engine.drivers["engine"], engine.id),
        readonly=True,
    )
    assert await sealed.table("items").count() == 2
    engine.statements.take()
    with pytest.raises(DatabaseError) as engine_refused:
        await sealed.table("items").add({"id": "c", "n": 3})
    write = engine.statements.take()
    assert await sealed.table("items").keys() == ["a", "b"]
    await sealed.close()
    # SQLite has no read-only transaction: the read-only connection (`query_only`, or an
    # immutable file) is what refuses writes.
    postgres = engine.name != "sqlite"
    assert read == (["BEGIN READ ONLY", "SELECT", "COMMIT"] if postgres else ["SELECT"])
    assert (refused.value.code, untouched) == ("TOOL", [])
    assert engine_refused.value.code == "DRIVER"
    assert engine_refused.value.context is not None
    assert engine_refused.value.context["readonly"] is True
    if postgres:
        assert write == ["BEGIN READ ONLY", "INSERT", "ROLLBACK"]
    writer = engine.tool(store=store)
    await writer.execute({"operation": "destroy", "id": engine.id})
    await writer.close()
