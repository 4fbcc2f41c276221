"""The answer caps of the workspace and database tools are `orkestrel serve` options: each flag
changes what the MCP client reads, and the tool's description names the cap it was built
with."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.mcp_client import connect, stdio, text

pytestmark = pytest.mark.anyio

TABLES = {"notes": {"columns": {"body": "string"}}}


def serve(tmp_path: Path, *flags: str) -> Any:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    argv = ["-m", "orkestrel", "serve", "--root", str(root), "--data", str(tmp_path / "data")]
    return stdio(sys.executable, [*argv, *flags])


async def test_workspace_read_lines_caps_every_read_and_the_description_says_so(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "ten.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    read = {"operation": "read", "path": "ten.txt"}
    async with connect(serve(tmp_path, "--workspace-read-lines", "3")) as client:
        first = await client.call_tool("workspace", read)
        asked = await client.call_tool("workspace", {**read, "limit": 5})
        after = await client.call_tool("workspace", {**read, "offset": 4, "limit": 2})
        described = await client.call_tool("describe", {"name": "workspace"})
    assert text(first) == (
        "line 1\nline 2\nline 3\n[truncated: showed lines 1-3 of 10; read on with offset 4]"
    )
    assert text(asked) == text(first)
    assert text(after).startswith("line 4\nline 5\n[truncated: showed lines 4-5 of 10;")
    assert "at most limit lines (default and most 3," in text(described)


async def test_workspace_read_chars_caps_reads_and_the_lines_a_search_answers(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "words.txt").write_text("alpha one\nalpha two\nalpha three\n")
    async with connect(serve(tmp_path, "--workspace-read-chars", "20")) as client:
        read = await client.call_tool("workspace", {"operation": "read", "path": "words.txt"})
        found = await client.call_tool("workspace", {"operation": "search", "query": "alpha"})
        described = await client.call_tool("describe", {"name": "workspace"})
    assert text(read) == (
        "alpha one\nalpha two\n[truncated: showed lines 1-2 of 3; read on with offset 3]"
    )
    answer = json.loads(text(found))
    assert answer == found["structuredContent"]
    assert [match["content"] for match in answer["matches"]] == ["alpha one", "alpha two"]
    assert answer["truncated"] is True
    assert "narrow the query" in answer["note"]
    assert "and at most 20 characters" in text(described)


async def test_workspace_search_matches_caps_the_matches_one_search_answers(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "hits.txt").write_text("".join(f"hit {n}\n" for n in range(5)))
    search = {"operation": "search", "query": "hit"}
    async with connect(serve(tmp_path, "--workspace-search-matches", "2")) as client:
        capped = await client.call_tool("workspace", search)
        fewer = await client.call_tool("workspace", {**search, "limit": 1})
        described = await client.call_tool("describe", {"name": "workspace"})
    answer = json.loads(text(capped))
    assert [match["content"] for match in answer["matches"]] == ["hit 0", "hit 1"]
    assert answer["truncated"] is True
    assert [match["content"] for match in json.loads(text(fewer))] == ["hit 0"]
    assert "At most 2 matches" in text(described)


@pytest.mark.parametrize("keys", [2, 0])
async def test_database_answer_keys_caps_the_keys_an_add_of_many_rows_answers(
    tmp_path: Path, keys: int
) -> None:
    rows = [{"body": f"note {n}"} for n in range(5)]
    add = {"operation": "add", "id": "log", "table": "notes", "row": rows}
    async with connect(serve(tmp_path, "--database-answer-keys", str(keys))) as client:
        await client.call_tool("database", {"operation": "create", "id": "log", "tables": TABLES})
        many = await client.call_tool("database", add)
        few = await client.call_tool("database", {**add, "row": rows[:keys]})
        counted = await client.call_tool(
            "database", {"operation": "count", "id": "log", "table": "notes"}
        )
        described = await client.call_tool("describe", {"name": "database"})
    answer = many["structuredContent"]
    assert (answer["count"], len(answer["keys"]), answer["truncated"]) == (5, keys, True)
    assert json.loads(text(many)) == answer
    assert few["structuredContent"] == {"keys": few["structuredContent"]["keys"]}
    assert len(few["structuredContent"]["keys"]) == keys
    assert json.loads(text(counted)) == {"count": 5 + keys}
    assert f"A list of more than {keys} rows" in text(described)


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--workspace-read-lines", "0", "expected a positive integer, got '0'"),
        ("--workspace-read-chars", "many", "expected a positive integer, got 'many'"),
        ("--workspace-search-matches", "-1", "expected a positive integer, got '-1'"),
        ("--database-answer-keys", "-1", "expected a nonnegative integer, got '-1'"),
    ],
)
def test_a_cap_that_is_not_a_count_stops_serve_at_start(
    tmp_path: Path, flag: str, value: str, expected: str
) -> None:
    argv = [sys.executable, "-m", "orkestrel", "serve", "--root", str(tmp_path), flag, value]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 2
    assert f"argument {flag}: {expected}" in done.stderr
