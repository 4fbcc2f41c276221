"""Rows written by one process are read back by another, on the durable engines."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from orkestrel.database import Column, create_database, create_postgres_driver, create_sqlite_driver

from .conftest import drop_schema

pytestmark = pytest.mark.anyio

TABLES = {"notes": {"id": "string", "body": "string", "tags": Column("json", optional=True)}}
ROWS = [
    {"id": "a", "body": "first", "tags": ["x", {"y": 1}]},
    {"id": "b", "body": "zweite ü"},
]
READER = textwrap.dedent(
    """
    import json, sys, anyio
    from orkestrel.database import Column, create_database
    from orkestrel.database import create_postgres_driver, create_sqlite_driver

    async def main(kind, where, schema):
        driver = (
            create_sqlite_driver(where)
            if kind == "sqlite"
            else create_postgres_driver(where, schema=schema)
        )
        tags = Column("json", optional=True)
        database = create_database(
            tables={"notes": {"id": "string", "body": "string", "tags": tags}},
            driver=driver,
            version=3,
            readonly=True,
        )
        print(json.dumps(await database.table("notes").records()))
        await database.close()

    anyio.run(main, *sys.argv[1:])
    """
)


def read_in_a_new_process(kind: str, where: str, schema: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", READER, kind, where, schema],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows: list[dict[str, object]] = json.loads(done.stdout)
    return rows


async def test_sqlite_rows_survive_the_process(tmp_path: Path) -> None:
    path = tmp_path / "notes.sqlite3"
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path), version=3)
    await database.table("notes").add(ROWS)
    await database.close()
    assert read_in_a_new_process("sqlite", str(path), "") == ROWS


async def test_postgres_rows_survive_the_process(postgres_dsn: str) -> None:
    schema = f"n_{uuid.uuid4().hex[:12]}"
    try:
        driver = create_postgres_driver(postgres_dsn, schema=schema)
        database = create_database(tables=TABLES, driver=driver, version=3)
        await database.table("notes").add(ROWS)
        await database.close()
        assert read_in_a_new_process("postgres", postgres_dsn, schema) == ROWS
    finally:
        drop_schema(postgres_dsn, schema)
