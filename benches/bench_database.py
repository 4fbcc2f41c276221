"""The database layer against hand-written SQL on raw `sqlite3` and psycopg.

On a 100,000-row table: `records` (one condition, one sort term, limit 1000), `count` (the same
condition) and `add` of 10,000 rows in one call. The PostgreSQL cases run when
`ORKESTREL_POSTGRES_DSN` names a server.

Run: `pytest benches/bench_database.py -c benches/pytest.ini` (with a release build installed).
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import (
    Column,
    DatabaseInterface,
    create_database,
    create_postgres_driver,
    create_sqlite_driver,
)
from orkestrel.toolbox import create_database_tool

SIZE = 100_000
COLUMNS = ("id", "name", "price", "stock")
TABLES = {
    "products": {
        "id": "string",
        "name": "string",
        "price": "number",
        "stock": Column("integer", optional=True),
    }
}
RANDOM = random.Random(7)
ROWS = [
    {
        "id": f"p{i:06}",
        "name": f"item {RANDOM.randrange(10**6):06}",
        "price": round(RANDOM.uniform(0, 1000), 2),
        "stock": RANDOM.randrange(100),
    }
    for i in range(SIZE)
]
BATCH = [{"id": f"n{i:06}", "name": f"new {i}", "price": 1.5, "stock": 3} for i in range(10_000)]
CONDITION = [{"column": "price", "operator": "below", "values": [500]}]
QUERY = {
    "conditions": CONDITION,
    "order": [{"column": "name", "direction": "ascending"}],
    "limit": 1000,
}
SQLITE_RECORDS = "SELECT id, name, price, stock FROM products WHERE price < ? ORDER BY name LIMIT ?"
SQLITE_COUNT = "SELECT COUNT(*) FROM products WHERE price < ?"
SQLITE_INSERT = "INSERT INTO products VALUES (?, ?, ?, ?)"
SQLITE_DDL = (
    "CREATE TABLE products (id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL, "
    "price REAL NOT NULL, stock INTEGER) STRICT"
)


def raw_file(path: Path) -> sqlite3.Connection:
    """A raw `sqlite3` connection to a new WAL file holding the 100,000 rows."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute(SQLITE_DDL)
    connection.execute("BEGIN")
    connection.executemany(SQLITE_INSERT, tuples(ROWS))
    connection.execute("COMMIT")
    return connection


def tuples(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["id"], r["name"], r["price"], r["stock"]) for r in rows]


def run(loop: asyncio.AbstractEventLoop, make: Callable[[], Any]) -> Any:
    return loop.run_until_complete(make())


@pytest.fixture(scope="module")
def raw_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    connection = raw_file(tmp_path_factory.mktemp("raw") / "raw.sqlite3")
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def layer_sqlite(
    tmp_path_factory: pytest.TempPathFactory, loop: asyncio.AbstractEventLoop
) -> Iterator[DatabaseInterface]:
    path: Path = tmp_path_factory.mktemp("layer") / "layer.sqlite3"
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path))
    run(loop, lambda: database.table("products").add(ROWS))
    yield database
    run(loop, database.close)


def raw_postgres(dsn: str, prefix: str) -> tuple[Any, str, str]:
    """An autocommit psycopg connection whose search path is a new schema holding `ROWS` in
    `products` (analyzed), and the names of that schema and of an unused one for the layer."""
    import psycopg

    raw_schema, layer_schema = (f"{prefix}_{uuid.uuid4().hex[:10]}" for _ in range(2))
    connection = psycopg.connect(dsn, autocommit=True)
    connection.execute(f"CREATE SCHEMA {raw_schema}")
    connection.execute(f"SET search_path TO {raw_schema}")
    connection.execute(
        'CREATE TABLE products (id text COLLATE "C" NOT NULL PRIMARY KEY, name text COLLATE "C" '
        "NOT NULL, price double precision NOT NULL, stock bigint)"
    )
    with connection.transaction(), connection.cursor() as cursor:
        cursor.executemany("INSERT INTO products VALUES (%s, %s, %s, %s)", tuples(ROWS))
    connection.execute("ANALYZE products")
    return connection, raw_schema, layer_schema


@pytest.fixture(scope="module")
def postgres(loop: asyncio.AbstractEventLoop) -> Iterator[tuple[Any, DatabaseInterface]]:
    dsn = os.environ.get("ORKESTREL_POSTGRES_DSN")
    if not dsn:
        pytest.skip("set ORKESTREL_POSTGRES_DSN to benchmark PostgreSQL")
    connection, raw_schema, layer_schema = raw_postgres(dsn, "bench")
    database = create_database(
        tables=TABLES, driver=create_postgres_driver(dsn, schema=layer_schema)
    )
    run(loop, lambda: database.table("products").add(ROWS))
    yield connection, database
    run(loop, database.close)
    for schema in (raw_schema, layer_schema):
        connection.execute(f"DROP SCHEMA {schema} CASCADE")
    connection.close()


def as_records(rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows]


@pytest.mark.benchmark(group="sqlite records")
def bench_sqlite_records_raw(benchmark: Any, raw_sqlite: sqlite3.Connection) -> None:
    rows = benchmark(lambda: as_records(raw_sqlite.execute(SQLITE_RECORDS, (500, 1000)).fetchall()))
    assert len(rows) == 1000


@pytest.mark.benchmark(group="sqlite records")
def bench_sqlite_records_layer(
    benchmark: Any, layer_sqlite: DatabaseInterface, loop: asyncio.AbstractEventLoop
) -> None:
    table = layer_sqlite.table("products")
    assert len(benchmark(lambda: run(loop, lambda: table.records(QUERY)))) == 1000


@pytest.mark.benchmark(group="sqlite count")
def bench_sqlite_count_raw(benchmark: Any, raw_sqlite: sqlite3.Connection) -> None:
    assert benchmark(lambda: raw_sqlite.execute(SQLITE_COUNT, (500,)).fetchone()[0]) > 0


@pytest.mark.benchmark(group="sqlite count")
def bench_sqlite_count_layer(
    benchmark: Any, layer_sqlite: DatabaseInterface, loop: asyncio.AbstractEventLoop
) -> None:
    table = layer_sqlite.table("products")
    assert benchmark(lambda: run(loop, lambda: table.count({"conditions": CONDITION}))) > 0


@pytest.mark.benchmark(group="sqlite add 10k")
def bench_sqlite_add_raw(benchmark: Any, raw_sqlite: sqlite3.Connection) -> None:
    def clear() -> None:
        raw_sqlite.execute("DELETE FROM products WHERE id >= 'n'")

    def insert() -> None:
        raw_sqlite.execute("BEGIN")
        raw_sqlite.executemany(SQLITE_INSERT, tuples(BATCH))
        raw_sqlite.execute("COMMIT")

    benchmark.pedantic(insert, setup=clear, rounds=10)


@pytest.mark.benchmark(group="sqlite add 10k")
def bench_sqlite_add_layer(
    benchmark: Any, layer_sqlite: DatabaseInterface, loop: asyncio.AbstractEventLoop
) -> None:
    table = layer_sqlite.table("products")
    keys = [row["id"] for row in BATCH]

    def clear() -> None:
        run(loop, lambda: table.remove(keys))

    benchmark.pedantic(lambda: run(loop, lambda: table.add(BATCH)), setup=clear, rounds=10)


@pytest.mark.benchmark(group="postgres records")
def bench_postgres_records_raw(benchmark: Any, postgres: tuple[Any, DatabaseInterface]) -> None:
    connection, _ = postgres
    sql = "SELECT id, name, price, stock FROM products WHERE price < %s ORDER BY name LIMIT %s"
    rows = benchmark(lambda: as_records(connection.execute(sql, (500, 1000)).fetchall()))
    assert len(rows) == 1000


@pytest.mark.benchmark(group="postgres records")
def bench_postgres_records_layer(
    benchmark: Any, postgres: tuple[Any, DatabaseInterface], loop: asyncio.AbstractEventLoop
) -> None:
    table = postgres[1].table("products")
    assert len(benchmark(lambda: run(loop, lambda: table.records(QUERY)))) == 1000


@pytest.mark.benchmark(group="postgres count")
def bench_postgres_count_raw(benchmark: Any, postgres: tuple[Any, DatabaseInterface]) -> None:
    connection, _ = postgres
    sql = "SELECT COUNT(*) FROM products WHERE price < %s"
    assert benchmark(lambda: connection.execute(sql, (500,)).fetchone()[0]) > 0


@pytest.mark.benchmark(group="postgres count")
def bench_postgres_count_layer(
    benchmark: Any, postgres: tuple[Any, DatabaseInterface], loop: asyncio.AbstractEventLoop
) -> None:
    table = postgres[1].table("products")
    assert benchmark(lambda: run(loop, lambda: table.count({"conditions": CONDITION}))) > 0


@pytest.mark.benchmark(group="postgres add 10k")
def bench_postgres_add_raw(benchmark: Any, postgres: tuple[Any, DatabaseInterface]) -> None:
    connection, _ = postgres

    def insert() -> None:
        with connection.transaction(), connection.cursor() as cursor:
            cursor.executemany("INSERT INTO products VALUES (%s, %s, %s, %s)", tuples(BATCH))

    def clear() -> None:
        connection.execute("DELETE FROM products WHERE id >= 'n'")

    benchmark.pedantic(insert, setup=clear, rounds=10)


@pytest.mark.benchmark(group="postgres add 10k")
def bench_postgres_add_layer(
    benchmark: Any, postgres: tuple[Any, DatabaseInterface], loop: asyncio.AbstractEventLoop
) -> None:
    table = postgres[1].table("products")
    keys = [row["id"] for row in BATCH]

    def clear() -> None:
        run(loop, lambda: table.remove(keys))

    benchmark.pedantic(lambda: run(loop, lambda: table.add(BATCH)), setup=clear, rounds=10)


def tool_over(database: DatabaseInterface) -> Any:
    return create_database_tool(databases={"bench": database})


RECORDS_CALL = {"operation": "records", "id": "bench", "table": "products", "query": QUERY}
COUNT_CALL = {
    "operation": "count",
    "id": "bench",
    "table": "products",
    "query": {"conditions": CONDITION},
}
ADD_CALL = {"operation": "add", "id": "bench", "table": "products", "row": BATCH}


def _time_tool(
    benchmark: Any,
    loop: asyncio.AbstractEventLoop,
    database: DatabaseInterface,
    call: dict[str, Any],
) -> Any:
    tool = tool_over(database)
    return benchmark(lambda: run(loop, lambda: tool.execute(call)))


def _time_tool_add(
    benchmark: Any, loop: asyncio.AbstractEventLoop, database: DatabaseInterface
) -> None:
    tool = tool_over(database)
    keys = [row["id"] for row in BATCH]

    def clear() -> None:
        run(loop, lambda: database.table("products").remove(keys))

    benchmark.pedantic(lambda: run(loop, lambda: tool.execute(ADD_CALL)), setup=clear, rounds=10)


@pytest.mark.benchmark(group="sqlite records")
def bench_sqlite_records_tool(
    benchmark: Any, layer_sqlite: DatabaseInterface, loop: asyncio.AbstractEventLoop
) -> None:
    assert _time_tool(benchmark, loop, layer_sqlite, RECORDS_CALL)["count"] == 1000


@pytest.mark.benchmark(group="sqlite count")
def bench_sqlite_count_tool(
    benchmark: Any, layer_sqlite: DatabaseInterface, loop: asyncio.AbstractEventLoop
) -> None:
    assert _time_tool(benchmark, loop, layer_sqlite, COUNT_CALL)["count"] > 0


@pytest.mark.benchmark(group="sqlite add 10k")
def bench_sqlite_add_tool(
    benchmark: Any, layer_sqlite: DatabaseInterface, loop: asyncio.AbstractEventLoop
) -> None:
    _time_tool_add(benchmark, loop, layer_sqlite)


@pytest.mark.benchmark(group="postgres records")
def bench_postgres_records_tool(
    benchmark: Any, postgres: tuple[Any, DatabaseInterface], loop: asyncio.AbstractEventLoop
) -> None:
    assert _time_tool(benchmark, loop, postgres[1], RECORDS_CALL)["count"] == 1000


@pytest.mark.benchmark(group="postgres count")
def bench_postgres_count_tool(
    benchmark: Any, postgres: tuple[Any, DatabaseInterface], loop: asyncio.AbstractEventLoop
) -> None:
    assert _time_tool(benchmark, loop, postgres[1], COUNT_CALL)["count"] > 0


@pytest.mark.benchmark(group="postgres add 10k")
def bench_postgres_add_tool(
    benchmark: Any, postgres: tuple[Any, DatabaseInterface], loop: asyncio.AbstractEventLoop
) -> None:
    _time_tool_add(benchmark, loop, postgres[1])
