"""Every built-in tool has a human title, listed as the tool's `title` and its annotations'
`title`, in the toolbox and over the wire to the SDK's own client."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkestrel.mcp.helpers import tool_wire
from support.mcp_client import connect
from support.serve_http import http_server
from support.toolbox import SERVE_VALUES, factory_tools, served_tools

pytestmark = pytest.mark.anyio


async def test_every_builtin_tool_has_a_title(tmp_path: Path) -> None:
    async with served_tools(tmp_path) as served:
        # An endpoint tool is the caller's own tool, named and described by its definition.
        tools = [*(t for t in factory_tools() if t.name != "lookup"), *served]
    for tool in tools:
        entry = tool_wire(tool)
        assert entry.get("title"), tool.name
        assert entry["annotations"]["title"] == entry["title"]


async def test_titles_reach_the_client(tmp_path: Path) -> None:
    argv = ("--tools", "infer,describe,database,workspace", "--workflow", "--ask")
    relations = ("--relations", SERVE_VALUES["--relations"], "--root", str(tmp_path))
    async with http_server(*argv, *relations) as (url, _), connect(url) as client:
        listed = await client.list_tools()
    titles = {tool["name"]: tool.get("title") for tool in listed}
    assert set(titles) == {
        "infer",
        "describe",
        "database",
        "workspace",
        "workflow",
        "relation",
        "ask",
    }
    assert all(titles.values()), titles
