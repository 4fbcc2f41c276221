"""The served database tool: SQLite files and definitions under `--data` that outlive the
process, and `--readonly` enforced at the tool and at the engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.cli.builtins import builtin_factories, open_definitions, open_resolver
from orkestrel.cli.toolbox import open_toolbox
from orkestrel.database import DatabaseError
from orkestrel.mcp import create_server
from orkestrel.tool import PROGRESS_INTERVAL, ToolManager
from support.mcp_client import MODES, connect, stdio, text
from support.readonly import readonly_folder

pytestmark = pytest.mark.anyio

SHOP = {"products": {"columns": {"name": "string", "price": "number"}}}


def database(**arguments: Any) -> Any:
    return {"id": str(arguments.get("operation")), "name": "database", "arguments": arguments}


async def ask(manager: ToolManager, **arguments: Any) -> Any:
    result = await manager.execute(database(**arguments))
    return result["value"] if result["success"] else ("error", result["error"])


def toolbox(data: Path, readonly: bool = False) -> Any:
    return open_toolbox(
        root=data, data=data, readonly=readonly, builtins=builtin_factories(), select=["database"]
    )


async def fill(data: Path) -> None:
    async with toolbox(data) as manager:
        await ask(manager, operation="create", id="shop", tables=SHOP)
        added = await ask(
            manager,
            operation="add",
            id="shop",
            table="products",
            row=[
                {"id": "tea", "name": "Tea", "price": 3.5},
                {"id": "cake", "name": "Cake", "price": 2},
            ],
        )
        assert added == {"keys": ["tea", "cake"]}


async def names(manager: ToolManager) -> list[str]:
    records = await ask(manager, operation="records", id="shop", table="products")
    return [row["name"] for row in records["rows"]]


async def test_databases_outlive_the_toolbox(tmp_path: Path) -> None:
    await fill(tmp_path)
    assert (tmp_path / "definitions.sqlite3").is_file()
    assert (tmp_path / "databases" / "shop.sqlite3").is_file()
    async with toolbox(tmp_path) as manager:
        assert await names(manager) == ["Cake", "Tea"]
        tables = await ask(manager, operation="tables", id="shop")
    assert "products" in str(tables)


async def test_readonly_refuses_writes_at_the_tool_and_still_reads(tmp_path: Path) -> None:
    await fill(tmp_path)
    async with toolbox(tmp_path, readonly=True) as manager:
        refused = [
            await ask(manager, operation="add", id="shop", table="products", row={"name": "X"}),
            await ask(manager, operation="remove", id="shop", table="products", key="tea"),
            await ask(manager, operation="create", id="other", tables=SHOP),
            await ask(manager, operation="destroy", id="shop"),
        ]
        kept = await names(manager)
    assert refused == [
        ("error", f"operation '{name}' is disabled in readonly mode")
        for name in ("add", "remove", "create", "destroy")
    ]
    assert kept == ["Cake", "Tea"]


async def test_readonly_refuses_writes_at_the_engine(tmp_path: Path) -> None:
    await fill(tmp_path)
    before = (tmp_path / "databases" / "shop.sqlite3").read_bytes()
    store = open_definitions(tmp_path, readonly=True)
    resolver = open_resolver(store, tmp_path, readonly=True)
    try:
        shop = await resolver.resolve("shop")
        assert shop.readonly is True
        with pytest.raises(DatabaseError):
            await shop.table("products").add({"id": "bread", "name": "Bread", "price": 1})
        with pytest.raises(DatabaseError):
            await shop.table("products").remove("tea")
        with pytest.raises(DatabaseError):
            await store.set({"id": "sneaky", "driver": "sqlite", "tables": SHOP})
        assert [row["name"] for row in await shop.table("products").records()] == ["Cake", "Tea"]
    finally:
        await resolver.close()
        await store.close()  # type: ignore[attr-defined]
    assert (tmp_path / "databases" / "shop.sqlite3").read_bytes() == before
    again = open_definitions(tmp_path, readonly=True)
    try:
        assert await again.get("sneaky") is None
    finally:
        await again.close()  # type: ignore[attr-defined]


async def test_readonly_over_empty_data_writes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "never"
    async with toolbox(data, readonly=True) as manager:
        missing = await ask(manager, operation="tables", id="shop")
    assert missing == ("error", "unknown database 'shop'")
    assert not data.exists()


async def test_the_default_driver_is_kept_on_disk_too(tmp_path: Path) -> None:
    async with toolbox(tmp_path) as manager:
        made = await ask(manager, operation="create", id="notes", tables=SHOP, driver="memory")
        assert made == {"id": "notes", "tables": ["products"]}
        await ask(
            manager,
            operation="set",
            id="notes",
            table="products",
            row={"id": "a", "name": "A", "price": 1},
        )
    async with toolbox(tmp_path) as manager:
        got = await ask(manager, operation="get", id="notes", table="products", key="a")
    assert got == {"row": {"id": "a", "name": "A", "price": 1}}
    assert (tmp_path / "databases" / "notes.sqlite3").is_file()


async def test_over_mcp_a_malformed_call_is_a_one_line_error(tmp_path: Path) -> None:
    async with toolbox(tmp_path) as manager, connect(create_server(manager)) as client:
        listed = await client.list_tools()
        bad = await client.call_tool("database", {"operation": "records", "id": 7})
        unknown = await client.call_tool("database", {"operation": "explode"})
    assert [tool["name"] for tool in listed] == ["database"]
    for result in (bad, unknown):
        assert result.get("isError", False) is True
        assert text(result).startswith("malformed database call: ")
        assert "\n" not in text(result)
    assert os.listdir(tmp_path) == []


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        path.relative_to(folder).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_readonly_serves_sqlite_from_a_readonly_directory_and_changes_no_file(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    anyio.run(fill, data)
    before = _files(data)
    assert sorted(before) == ["databases/shop.sqlite3", "definitions.sqlite3"]
    records = json.dumps({"operation": "records", "id": "shop", "table": "products"})
    command = [sys.executable, "-m", "orkestrel", "tools", "call", "database", "--readonly"]
    command += ["--tools", "database", "--root", str(data), "--data", str(data), "--args", records]
    with readonly_folder(data) as prefix:
        if prefix is None:
            pytest.skip("no way to make a folder read-only here (no unshare, running as root)")
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["value"]["rows"]
    assert [row["name"] for row in rows] == ["Cake", "Tea"]
    assert _files(data) == before


ITEMS = {"items": {"columns": {"name": "string", "n": "integer"}}}
MANY = 20_000
Heard = list[tuple[float, float | None, str | None]]


def _served(tmp_path: Path, mode: str | None = None) -> Any:
    argv = ["serve", "--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]
    (tmp_path / "root").mkdir(exist_ok=True)
    return connect(stdio(sys.executable, ["-m", "orkestrel", *argv]), mode=mode)


async def _add_many(client: Any, heard: Heard | None) -> tuple[dict[str, Any], float]:
    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        assert heard is not None
        heard.append((done, total, message))

    await client.call_tool("database", {"operation": "create", "id": "bulk", "tables": ITEMS})
    rows = [{"id": f"r{n:05}", "name": f"row {n}", "n": n} for n in range(MANY)]
    arguments = {"operation": "add", "id": "bulk", "table": "items", "row": rows}
    started = anyio.current_time()
    answer = await client.call_tool(
        "database", arguments, progress=None if heard is None else on_progress
    )
    return answer, anyio.current_time() - started


async def _counted(client: Any) -> Any:
    answer = await client.call_tool(
        "database", {"operation": "count", "id": "bulk", "table": "items"}
    )
    return answer["structuredContent"]


@pytest.mark.parametrize("mode", MODES)
async def test_a_20000_row_add_reports_its_progress_at_a_bounded_rate(
    tmp_path: Path, mode: str
) -> None:
    heard: Heard = []
    async with _served(tmp_path, mode) as client:
        answer, took = await _add_many(client, heard)
        count = await _counted(client)
    assert answer.get("isError", False) is False
    assert answer["structuredContent"]["count"] == MANY
    assert answer["structuredContent"]["keys"][:2] == ["r00000", "r00001"]
    assert count == {"count": MANY}
    assert heard, "no progress reached the client"
    done = [report[0] for report in heard]
    assert done == sorted(set(done))
    assert done[-1] == MANY
    assert {total for _, total, _ in heard} == {MANY}
    for reached, _, message in heard:
        assert message == f"add: {int(reached)} of {MANY} rows of table 'items' done"
    # The pacer sends the first report at once, then at most one per PROGRESS_INTERVAL, and
    # the last: a rate law, whatever the machine's speed.
    assert len(heard) <= took / PROGRESS_INTERVAL + 2


@pytest.mark.parametrize("mode", MODES)
async def test_a_20000_row_add_without_a_progress_token_reports_nothing(
    tmp_path: Path, mode: str
) -> None:
    async with _served(tmp_path, mode) as client:
        answer, _ = await _add_many(client, None)
        count = await _counted(client)
        sent = [n for n in client.notifications if n["method"] == "notifications/progress"]
    assert answer["structuredContent"]["count"] == MANY
    assert count == {"count": MANY}
    assert sent == []
