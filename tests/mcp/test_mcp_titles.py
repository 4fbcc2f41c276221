"""Every built-in tool has a human title, listed as the tool's `title` and its annotations'
`title`, in the toolbox and over the wire to the SDK's own client; so does every resource,
resource template and prompt `orkestrel serve` lists, and the ask form's view and its tools."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from orkestrel.mcp.helpers import tool_wire
from support.apps import APPS, MIME
from support.mcp_client import connect, needs_v2, raw_session, stdio, wire
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


async def test_every_resource_template_and_prompt_has_a_title(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "notes.md").write_text("notes\n")
    (root / "logo.bin").write_bytes(b"\xff\x00")
    state = ["--root", str(root), "--data", str(tmp_path / "data"), "--workflow", "--ask"]
    command = stdio(sys.executable, ["-m", "orkestrel", "serve", *state])
    async with connect(command) as client:
        session = raw_session(client)
        resources = wire(await session.list_resources())["resources"]
        templates = wire(await session.list_resource_templates())["resourceTemplates"]
        prompts = wire(await session.list_prompts())["prompts"]
    assert {r["uri"]: r.get("title") for r in resources} == {
        "workspace:///docs/notes.md": "docs/notes.md",
        "workspace:///logo.bin": "logo.bin",
    }
    assert len(templates) == 3
    assert len(prompts) == 3
    for entry in [*templates, *prompts]:
        assert entry.get("title"), entry["name"]


@needs_v2
async def test_the_ask_view_and_its_tools_have_titles_and_the_servers_icons() -> None:
    from mcp.client import Client
    from mcp.client.extension import advertise

    icon = "https://icons.example/orkestrel.png"
    argv = ["-m", "orkestrel", "serve", "--ask", "--tools", "infer", "--icon", icon]
    command = stdio(sys.executable, argv)
    extensions = [advertise(APPS, {"mimeTypes": [MIME]})]
    async with Client(command, extensions=extensions) as session:
        tools: list[Any] = wire((await session.list_tools()).tools)
        resources: list[Any] = wire((await session.list_resources()).resources)
    assert {t["name"]: t.get("title") for t in tools} == {
        "infer": "Infer a schema",
        "ask": "Ask a person",
        "ask_forms": "Waiting forms",
        "ask_answer": "Answer a form",
    }
    assert [(r["uri"], r.get("title")) for r in resources] == [
        ("ui://orkestrel/ask", "Answer a form")
    ]
    # The server's icons go on the view and its tools as on every other tool.
    for entry in [*tools, *resources]:
        assert entry["icons"] == [{"src": icon}], entry["name"]
