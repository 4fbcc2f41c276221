"""`orkestrel serve` as a real process, driven by the SDK's own client over stdio and over
streamable HTTP on a free loopback port: the toolbox end to end, across restarts."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from support.mcp_client import Session, connect, stdio
from support.mcp_client import text as only_text

pytestmark = pytest.mark.anyio

ORKESTREL = [sys.executable, "-m", "orkestrel"]
SHOP = {"products": {"columns": {"name": "string", "price": "number"}}}

Connect = Callable[..., AbstractAsyncContextManager[Session]]


@pytest.fixture(params=["stdio", "http"])
def serve(request: pytest.FixtureRequest, spawn_http: Any, tmp_path: Path) -> Connect:
    """Starts `orkestrel serve` with the given arguments and connects the SDK's client."""
    transport = str(request.param)

    @asynccontextmanager
    async def open_client(*argv: str, env: dict[str, str] | None = None) -> AsyncIterator[Session]:
        if transport == "stdio":
            parameters = stdio(ORKESTREL[0], [*ORKESTREL[1:], "serve", *argv], env)
            async with connect(parameters) as client:
                yield client
            return
        command = [*ORKESTREL, "serve", "--transport", "http", "--port", "0", *argv]
        log = tmp_path / f"serve-{os.urandom(4).hex()}.log"
        with spawn_http(command, log, env) as url:
            async with connect(url) as client:
                yield client

    return open_client  # type: ignore[return-value]


def state(tmp_path: Path) -> list[str]:
    return ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]


async def test_the_toolbox_end_to_end_and_after_a_restart(serve: Connect, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "existing.txt").write_text("already here\n")
    async with serve(*state(tmp_path)) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        inferred = await client.call_tool("infer", {"samples": [{"a": 1}, {"a": 2, "b": "x"}]})
        described = await client.call_tool("describe", {"name": "database"})
        created = await client.call_tool(
            "database", {"operation": "create", "id": "shop", "tables": SHOP}
        )
        added = await client.call_tool(
            "database",
            {
                "operation": "add",
                "id": "shop",
                "table": "products",
                "row": [
                    {"id": "tea", "name": "Tea", "price": 3.5},
                    {"id": "jam", "name": "Jam", "price": 4},
                ],
            },
        )
        read = await client.call_tool(
            "database", {"operation": "records", "id": "shop", "table": "products"}
        )
        invalid = await client.call_tool("database", {"operation": "records", "id": 7})
        wrote = await client.call_tool(
            "workspace", {"operation": "write", "path": "notes/today.md", "content": "# Today\n"}
        )
        found = await client.call_tool("workspace", {"operation": "read", "path": "notes/today.md"})
        existing = await client.call_tool(
            "workspace", {"operation": "read", "path": "existing.txt"}
        )
    assert list(listed) == ["infer", "describe", "database", "workspace"]
    assert all(tool["inputSchema"]["type"] == "object" for tool in listed.values())
    assert listed["infer"].get("annotations") is not None
    assert listed["infer"]["annotations"]["readOnlyHint"] is True
    assert listed["database"].get("annotations") is not None
    assert listed["database"]["annotations"]["destructiveHint"] is True
    assert inferred.get("isError", False) is False
    assert inferred.get("structuredContent") is not None
    assert inferred.get("structuredContent")["type"] == "object"
    assert set(inferred.get("structuredContent")["properties"]) == {"a", "b"}
    assert only_text(described).startswith("Work with databases")
    assert created.get("structuredContent") == {"id": "shop", "tables": ["products"]}
    assert added.get("structuredContent") == {"keys": ["tea", "jam"]}
    assert read.get("structuredContent") is not None
    assert [row["name"] for row in read.get("structuredContent")["rows"]] == ["Jam", "Tea"]
    assert invalid.get("isError", False) is True
    assert only_text(invalid).startswith("malformed database call: ")
    assert "\n" not in only_text(invalid)
    assert (wrote.get("isError", False), only_text(found), only_text(existing)) == (
        False,
        "# Today\n",
        "already here\n",
    )
    assert (root / "notes" / "today.md").read_text() == "# Today\n"
    async with serve(*state(tmp_path)) as client:
        again = await client.call_tool(
            "database", {"operation": "records", "id": "shop", "table": "products"}
        )
        note = await client.call_tool("workspace", {"operation": "read", "path": "notes/today.md"})
    assert again.get("structuredContent") == read.get("structuredContent")
    assert only_text(note) == "# Today\n"


async def test_paths_cannot_escape_the_served_workspace(serve: Connect, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (root / "link").symlink_to(outside)
    absolute = str(tmp_path / "absolute.txt")
    escapes = ("../escape.txt", absolute, "a/../../escape.txt", "link", "..", ".git/config")
    async with serve(*state(tmp_path)) as client:
        attempts = [
            await client.call_tool(
                "workspace", {"operation": "write", "path": path, "content": "pwned"}
            )
            for path in escapes
        ]
        fine = await client.call_tool(
            "workspace", {"operation": "write", "path": "inside.txt", "content": "ok"}
        )
        moved = await client.call_tool(
            "workspace", {"operation": "move", "from": "inside.txt", "to": "../moved.txt"}
        )
        read = await client.call_tool("workspace", {"operation": "read", "path": "../secret.txt"})
        listing = await client.call_tool("workspace", {"operation": "list"})
        after = await client.call_tool("workspace", {"operation": "read", "path": "inside.txt"})
    assert [result.get("isError", False) for result in attempts] == [True] * len(escapes)
    assert all("\n" not in only_text(result) for result in attempts)
    assert (fine.get("isError", False), moved.get("isError", False)) == (False, True)
    assert (read.get("isError", False), only_text(read)) == (
        True,
        "Path must be relative and normalized (no empty, '.' or '..' parts): '../secret.txt'",
    )
    assert "secret" not in only_text(listing)
    assert only_text(after) == "ok"
    assert outside.read_text() == "secret"
    assert sorted(name for name in os.listdir(tmp_path) if name.endswith(".txt")) == ["secret.txt"]
    assert sorted(os.listdir(root)) == ["inside.txt", "link"]
    assert (root / "inside.txt").read_text() == "ok"


async def test_readonly_refuses_writes_and_serves_reads(serve: Connect, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "kept.txt").write_text("kept")
    async with serve(*state(tmp_path)) as client:
        await client.call_tool("database", {"operation": "create", "id": "shop", "tables": SHOP})
        await client.call_tool(
            "database",
            {
                "operation": "set",
                "id": "shop",
                "table": "products",
                "row": {"id": "a", "name": "A", "price": 1},
            },
        )
    async with serve(*state(tmp_path), "--readonly") as client:
        refused = await client.call_tool(
            "database",
            {
                "operation": "set",
                "id": "shop",
                "table": "products",
                "row": {"id": "b", "name": "B", "price": 2},
            },
        )
        count = await client.call_tool(
            "database", {"operation": "count", "id": "shop", "table": "products"}
        )
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        blocked = await client.call_tool(
            "workspace", {"operation": "write", "path": "kept.txt", "content": "changed"}
        )
        kept = await client.call_tool("workspace", {"operation": "read", "path": "kept.txt"})
    assert (refused.get("isError", False), only_text(refused)) == (
        True,
        "operation 'set' is disabled in readonly mode",
    )
    assert count.get("structuredContent") == {"count": 1}
    for name in ("database", "workspace"):
        hints = listed[name].get("annotations")
        assert hints is not None
        assert hints["readOnlyHint"] is True
    assert (blocked.get("isError", False), only_text(blocked)) == (
        True,
        "operation 'write' is disabled in readonly mode",
    )
    assert only_text(kept) == "kept"
    assert (root / "kept.txt").read_text() == "kept"


async def test_a_plugin_package_contributes_tools(
    serve: Connect, tmp_path: Path, plugin: Any
) -> None:
    paths = [str(plugin.directory), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {"PYTHONPATH": os.pathsep.join(paths)}
    async with serve(*state(tmp_path), "--tools", "greet,database", env=env) as client:
        names = [tool["name"] for tool in await client.list_tools()]
        hello = await client.call_tool("hello", {"who": "plugin"})
    assert names == ["hello", "where", "refuse", "database"]
    async with serve(*state(tmp_path), env=env) as client:
        everything = [tool["name"] for tool in await client.list_tools()]
    assert everything[:4] == ["infer", "describe", "database", "workspace"]
    assert set(everything[4:]) == {"hello", "where", "refuse", "later"}
    assert only_text(hello) == "hello plugin"
    async with serve(*state(tmp_path), "--tools", "greet", env=env) as client:
        only = [tool["name"] for tool in await client.list_tools()]
    assert only == ["hello", "where", "refuse"]


async def test_fifty_concurrent_infer_calls_each_answer_their_own(
    serve: Connect, tmp_path: Path
) -> None:
    answers: dict[int, dict[str, Any]] = {}

    async def infer(index: int) -> None:
        samples = [{f"field{index}": index}, {f"field{index}": index + 1}]
        answers[index] = await client.call_tool("infer", {"samples": samples})

    async with (
        serve(*state(tmp_path), "--tools", "infer") as client,
        anyio.create_task_group() as group,
    ):
        for index in range(50):
            group.start_soon(infer, index)
    assert sorted(answers) == list(range(50))
    for index, answer in answers.items():
        assert answer.get("isError", False) is False
        assert answer.get("structuredContent") is not None
        assert list(answer.get("structuredContent")["properties"]) == [f"field{index}"]
