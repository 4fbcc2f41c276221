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
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.anyio

ORKESTREL = [sys.executable, "-m", "orkestrel"]
SHOP = {"products": {"columns": {"name": "string", "price": "number"}}}

Connect = Callable[..., AbstractAsyncContextManager[Client]]


def only_text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, spawn_http: Any, tmp_path: Path) -> Connect:
    """Starts `orkestrel serve` with the given arguments and connects the SDK's client."""
    transport = str(request.param)

    @asynccontextmanager
    async def open_client(*argv: str, env: dict[str, str] | None = None) -> AsyncIterator[Client]:
        if transport == "stdio":
            parameters = StdioServerParameters(
                command=ORKESTREL[0], args=[*ORKESTREL[1:], "serve", *argv], env=env
            )
            async with Client(parameters) as client:
                yield client
            return
        command = [*ORKESTREL, "serve", "--transport", "http", "--port", "0", *argv]
        log = tmp_path / f"serve-{os.urandom(4).hex()}.log"
        with spawn_http(command, log, env) as url:
            async with Client(url) as client:
                yield client

    return open_client  # type: ignore[return-value]


def state(tmp_path: Path) -> list[str]:
    return ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]


async def test_the_toolbox_end_to_end_and_after_a_restart(connect: Connect, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "existing.txt").write_text("already here\n")
    async with connect(*state(tmp_path)) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
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
    assert all(tool.input_schema["type"] == "object" for tool in listed.values())
    assert listed["infer"].annotations is not None
    assert listed["infer"].annotations.read_only_hint is True
    assert listed["database"].annotations is not None
    assert listed["database"].annotations.destructive_hint is True
    assert inferred.is_error is False
    assert inferred.structured_content is not None
    assert inferred.structured_content["type"] == "object"
    assert set(inferred.structured_content["properties"]) == {"a", "b"}
    assert only_text(described).startswith('"Work with databases')
    assert created.structured_content == {"id": "shop", "tables": ["products"]}
    assert added.structured_content == {"keys": ["tea", "jam"]}
    assert read.structured_content is not None
    assert [row["name"] for row in read.structured_content["rows"]] == ["Jam", "Tea"]
    assert invalid.is_error is True
    assert only_text(invalid).startswith("malformed database call: ")
    assert "\n" not in only_text(invalid)
    assert (wrote.is_error, only_text(found), only_text(existing)) == (
        False,
        '"# Today\\n"',
        '"already here\\n"',
    )
    assert (root / "notes" / "today.md").read_text() == "# Today\n"
    async with connect(*state(tmp_path)) as client:
        again = await client.call_tool(
            "database", {"operation": "records", "id": "shop", "table": "products"}
        )
        note = await client.call_tool("workspace", {"operation": "read", "path": "notes/today.md"})
    assert again.structured_content == read.structured_content
    assert only_text(note) == '"# Today\\n"'


async def test_paths_cannot_escape_the_served_workspace(connect: Connect, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (root / "link").symlink_to(outside)
    absolute = str(tmp_path / "absolute.txt")
    escapes = ("../escape.txt", absolute, "a/../../escape.txt", "link", "..", ".git/config")
    async with connect(*state(tmp_path)) as client:
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
    assert [result.is_error for result in attempts] == [True] * len(escapes)
    assert all("\n" not in only_text(result) for result in attempts)
    assert (fine.is_error, moved.is_error) == (False, True)
    assert only_text(read) == "null"
    assert "secret" not in only_text(listing)
    assert only_text(after) == '"ok"'
    assert outside.read_text() == "secret"
    assert sorted(name for name in os.listdir(tmp_path) if name.endswith(".txt")) == ["secret.txt"]
    assert sorted(os.listdir(root)) == ["inside.txt", "link"]
    assert (root / "inside.txt").read_text() == "ok"


async def test_readonly_refuses_writes_and_serves_reads(connect: Connect, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "kept.txt").write_text("kept")
    async with connect(*state(tmp_path)) as client:
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
    async with connect(*state(tmp_path), "--readonly") as client:
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
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        blocked = await client.call_tool(
            "workspace", {"operation": "write", "path": "kept.txt", "content": "changed"}
        )
        kept = await client.call_tool("workspace", {"operation": "read", "path": "kept.txt"})
    assert (refused.is_error, only_text(refused)) == (
        True,
        "operation 'set' is disabled in readonly mode",
    )
    assert count.structured_content == {"count": 1}
    for name in ("database", "workspace"):
        hints = listed[name].annotations
        assert hints is not None
        assert hints.read_only_hint is True
    assert (blocked.is_error, only_text(blocked)) == (
        True,
        "operation 'write' is disabled in readonly mode",
    )
    assert only_text(kept) == '"kept"'
    assert (root / "kept.txt").read_text() == "kept"


async def test_a_plugin_package_contributes_tools(
    connect: Connect, tmp_path: Path, plugin: Any
) -> None:
    env = {"PYTHONPATH": str(plugin.directory)}
    async with connect(*state(tmp_path), "--tools", "greet,database", env=env) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        hello = await client.call_tool("hello", {"who": "plugin"})
    assert names == ["hello", "where", "refuse", "database"]
    async with connect(*state(tmp_path), env=env) as client:
        everything = [tool.name for tool in (await client.list_tools()).tools]
    assert everything[:4] == ["infer", "describe", "database", "workspace"]
    assert set(everything[4:]) == {"hello", "where", "refuse", "later"}
    assert only_text(hello) == '"hello plugin"'
    async with connect(*state(tmp_path), "--tools", "greet", env=env) as client:
        only = [tool.name for tool in (await client.list_tools()).tools]
    assert only == ["hello", "where", "refuse"]


async def test_fifty_concurrent_infer_calls_each_answer_their_own(
    connect: Connect, tmp_path: Path
) -> None:
    answers: dict[int, types.CallToolResult] = {}

    async def infer(index: int) -> None:
        samples = [{f"field{index}": index}, {f"field{index}": index + 1}]
        answers[index] = await client.call_tool("infer", {"samples": samples})

    async with (
        connect(*state(tmp_path), "--tools", "infer") as client,
        anyio.create_task_group() as group,
    ):
        for index in range(50):
            group.start_soon(infer, index)
    assert sorted(answers) == list(range(50))
    for index, answer in answers.items():
        assert answer.is_error is False
        assert answer.structured_content is not None
        assert list(answer.structured_content["properties"]) == [f"field{index}"]
