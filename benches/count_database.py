"""Instructions per call of the database tool against raw `sqlite3`, counted by callgrind.

Run it under valgrind; between phases it asks callgrind for a dump, so each dump holds one
phase's instructions (both threads, when a call uses a worker thread):

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \\
        python benches/count_database.py 200
    for f in /tmp/cg.out.*; do grep -m1 '^desc: Trigger' $f; grep -m1 '^summary:' $f; done

Divide each summary by the count given (200). With `ORKESTREL_POSTGRES_DSN` set it also
counts `records` on PostgreSQL, raw psycopg against the tool (the client process only: the
server's work is not counted). A second argument keeps only that many of the 100,000 rows.

The SQLite driver gets a 10-second inline budget: under valgrind everything runs about 50
times slower, and with the default 2 ms budget every inline call would be stopped and run again
in a worker thread, which a normal run never does.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bench_database as data
from orkestrel.database import create_database, create_sqlite_driver
from orkestrel.toolbox import create_database_tool

RECORDS = "SELECT id, name, price, stock FROM products WHERE price < ? ORDER BY id LIMIT ?"
PG_RECORDS = "SELECT id, name, price, stock FROM products WHERE price < %s ORDER BY id LIMIT %s"


def dump(label: str) -> None:
    """Makes callgrind write the instructions counted since the last dump."""
    command = ["callgrind_control", "-d", label, str(os.getpid())]
    subprocess.run(command, check=True, capture_output=True)


def batch(number: int) -> list[dict[str, Any]]:
    return [
        {"id": f"b{number:05}-{i:04}", "name": f"new {i}", "price": 1.5, "stock": 3}
        for i in range(1000)
    ]


async def records_phases(
    label: str, execute: Callable[[], Any], tool: Any, records: dict[str, Any], calls: int
) -> None:
    """Warms both up, then dumps the raw `records` calls' instructions and the tool's."""
    for _ in range(20):
        await tool.execute(records)
        data.as_records(execute().fetchall())
    dump(f"{label}setup")
    for _ in range(calls):
        data.as_records(execute().fetchall())
    dump(f"{label}records raw x{calls}")
    for _ in range(calls):
        await tool.execute(records)
    dump(f"{label}records tool x{calls}")


async def count(calls: int, folder: Path) -> None:
    raw = data.raw_file(folder / "raw.sqlite3")
    driver = create_sqlite_driver(folder / "layer.sqlite3", inline=10.0)
    layer = create_database(tables=data.TABLES, driver=driver)
    tool = create_database_tool(databases={"bench": layer})
    await layer.table("products").add(data.ROWS)
    query = {"conditions": data.CONDITION, "limit": 100}
    records = {"operation": "records", "id": "bench", "table": "products", "query": query}
    batches = [batch(n) for n in range(2 * calls // 10)]
    await records_phases("", lambda: raw.execute(RECORDS, (500, 100)), tool, records, calls)
    for rows in batches[: calls // 10]:
        raw.execute("BEGIN")
        raw.executemany(data.SQLITE_INSERT, data.tuples(rows))
        raw.execute("COMMIT")
    dump(f"add raw x{calls // 10}")
    for rows in batches[calls // 10 :]:
        await tool.execute({"operation": "add", "id": "bench", "table": "products", "row": rows})
    dump(f"add tool x{calls // 10}")
    await layer.close()
    raw.close()
    dsn = os.environ.get("ORKESTREL_POSTGRES_DSN")
    if dsn:
        await count_postgres(calls, dsn)


async def count_postgres(calls: int, dsn: str) -> None:
    from orkestrel.database import create_postgres_driver

    raw, raw_schema, layer_schema = data.raw_postgres(dsn, "count")
    layer = create_database(
        tables=data.TABLES, driver=create_postgres_driver(dsn, schema=layer_schema)
    )
    tool = create_database_tool(databases={"pg": layer})
    try:
        await layer.table("products").add(data.ROWS)
        query = {"conditions": data.CONDITION, "limit": 100}
        records = {"operation": "records", "id": "pg", "table": "products", "query": query}
        await records_phases(
            "postgres ", lambda: raw.execute(PG_RECORDS, (500, 100)), tool, records, calls
        )
        await layer.close()
    finally:
        for schema in (raw_schema, layer_schema):
            raw.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        raw.close()


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if len(sys.argv) > 2:
        # A smaller table loads faster under valgrind; the PostgreSQL client's work per call
        # does not depend on its size.
        del data.ROWS[int(sys.argv[2]) :]
    folder = Path(tempfile.mkdtemp(prefix="count-db-"))
    try:
        asyncio.run(count(calls, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
