"""`Database.destroy` removes a database's data, and a failed first open leaves no storage."""

from __future__ import annotations

import sqlite3
import uuid
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
import pytest

from orkestrel.database import (
    DatabaseError,
    SQLiteDriver,
    create_database,
    create_postgres_driver,
    create_sqlite_driver,
)

from .conftest import MakeDriver, drop_schema

pytestmark = pytest.mark.anyio

TABLES = {"notes": {"id": "string", "body": "string"}, "tags": {"id": "string"}}


def listing(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def sqlite_names(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as connection, connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return sorted(name for (name,) in rows)


def schema_tables(dsn: str, schema: str) -> list[str] | None:
    with psycopg.connect(dsn, autocommit=True) as connection:
        if not connection.execute(
            "SELECT 1 FROM information_schema.schemata WHERE schema_name = %s", (schema,)
        ).fetchall():
            return None
        rows = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
        ).fetchall()
        return sorted(name for (name,) in rows)


async def test_destroy_removes_the_rows_so_a_new_declaration_opens_empty(
    make_driver: MakeDriver,
) -> None:
    database = create_database(tables=TABLES, driver=make_driver(), version=2)
    await database.table("notes").add({"id": "a", "body": "kept?"})
    await database.destroy()
    assert database.status == "closed"
    with pytest.raises(DatabaseError) as closed:
        await database.table("notes").count()
    assert closed.value.code == "CLOSED"
    changed = {"notes": {"id": "string", "title": "string"}}
    again = create_database(tables=changed, driver=make_driver(), version=1)
    assert await again.table("notes").count() == 0
    await again.table("notes").add({"id": "b", "title": "new columns"})
    await again.close()


async def test_destroy_removes_the_sqlite_file_when_nothing_else_is_in_it(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite3"
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path), version=1)
    await database.table("notes").add({"id": "a", "body": "x"})
    assert path.exists()
    await database.destroy()
    assert listing(tmp_path) == []


async def test_destroy_keeps_undeclared_tables_and_their_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite3"
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("CREATE TABLE theirs (x)")
        connection.execute("INSERT INTO theirs VALUES (1)")
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path), version=1)
    other = create_database(tables={"other": {"id": "string"}}, driver=SQLiteDriver(path))
    await other.table("other").add({"id": "o"})
    await other.close()
    await database.table("notes").add({"id": "a", "body": "x"})
    await database.destroy()
    assert sqlite_names(path) == ["other", "theirs"]
    with closing(sqlite3.connect(path)) as connection, connection:
        assert connection.execute("SELECT x FROM theirs").fetchall() == [(1,)]


async def test_destroy_drops_the_postgres_schema_but_never_public(postgres_dsn: str) -> None:
    schema = f"d_{uuid.uuid4().hex[:12]}"
    try:
        database = create_database(
            tables=TABLES, driver=create_postgres_driver(postgres_dsn, schema=schema), version=1
        )
        await database.table("notes").add({"id": "a", "body": "x"})
        assert schema_tables(postgres_dsn, schema) == ["_orkestrel_metadata", "notes", "tags"]
        await database.destroy()
        assert schema_tables(postgres_dsn, schema) is None
        table = f"keep_{uuid.uuid4().hex[:8]}"
        public = create_database(
            tables={table: {"id": "string"}}, driver=create_postgres_driver(postgres_dsn)
        )
        await public.table(table).add({"id": "p"})
        await public.destroy()
        assert schema_tables(postgres_dsn, "public") is not None
        assert table not in (schema_tables(postgres_dsn, "public") or [])
    finally:
        drop_schema(postgres_dsn, schema)


async def test_a_readonly_or_closed_database_cannot_be_destroyed(tmp_path: Path) -> None:
    path = tmp_path / "shop.sqlite3"
    writer = create_database(tables=TABLES, driver=create_sqlite_driver(path))
    await writer.table("notes").add({"id": "a", "body": "x"})
    await writer.close()
    with pytest.raises(DatabaseError) as closed:
        await writer.destroy()
    assert closed.value.code == "CLOSED"
    reader = create_database(tables=TABLES, driver=create_sqlite_driver(path), readonly=True)
    with pytest.raises(DatabaseError) as refused:
        await reader.destroy()
    assert refused.value.code == "VALIDATION"
    assert await reader.table("notes").count() == 1
    await reader.close()


async def test_a_failed_first_open_removes_the_sqlite_file_it_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise DatabaseError("DRIVER", "the disk is full")

    monkeypatch.setattr(SQLiteDriver, "_prepare", broken)
    fresh = tmp_path / "fresh.sqlite3"
    with pytest.raises(DatabaseError, match="disk is full"):
        await create_database(tables=TABLES, driver=create_sqlite_driver(fresh)).open()
    assert listing(tmp_path) == []
    existing = tmp_path / "existing.sqlite3"
    sqlite3.connect(existing).close()
    with pytest.raises(DatabaseError, match="disk is full"):
        await create_database(tables=TABLES, driver=create_sqlite_driver(existing)).open()
    assert existing.exists()
