"""`stateless=True` (`serve --stateless`): no session, every POST served alone and answered
with JSON; the SDK's own client works against it, and so does a lone raw POST."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from support.mcp_client import MODES, connect, text
from support.serve_http import INITIALIZE, served, serving_manager

pytestmark = pytest.mark.anyio

ACCEPT = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-06-18",
}

ADD: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "add", "arguments": {"left": 2, "right": 3}},
}


@pytest.mark.parametrize("mode", MODES)
async def test_the_sdk_client_lists_and_calls_without_a_session(app: ModuleType, mode: str) -> None:
    async with (
        serving_manager(app.build(), stateless=True) as url,
        connect(url, mode=mode) as client,
    ):
        listed = await client.list_tools()
        answer = await client.call_tool("add", {"left": 2, "right": 3})
    assert "add" in [tool["name"] for tool in listed]
    assert text(answer) == "5"


async def test_the_fastmcp_client_lists_and_calls_without_a_session(app: ModuleType) -> None:
    pytest.importorskip("fastmcp", reason="the fastmcp client needs the 2.x SDK line")
    from fastmcp import Client

    async with serving_manager(app.build(), stateless=True) as url, Client(url) as client:
        listed = await client.list_tools()
        answer = await client.call_tool("add", {"left": 2, "right": 3})
    assert "add" in [tool.name for tool in listed]
    assert answer.content[0].text == "5"  # type: ignore[union-attr]


async def test_a_lone_call_is_answered_with_json(app: ModuleType) -> None:
    async with serving_manager(app.build(), stateless=True) as url, httpx.AsyncClient() as http:
        alone = await http.post(url, content=json.dumps(ADD), headers=ACCEPT)
    async with serving_manager(app.build()) as url, httpx.AsyncClient() as http:
        sessioned = await http.post(url, content=json.dumps(ADD), headers=ACCEPT)
    assert alone.status_code == 200
    assert alone.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in alone.headers
    assert alone.json()["id"] == 7
    assert alone.json()["result"]["content"][0]["text"] == "5"
    assert sessioned.status_code == 400


async def test_serve_stateless_from_the_command_line(tmp_path: Path) -> None:
    with served(tmp_path, "--stateless") as (_, base):
        async with httpx.AsyncClient() as http:
            opened = await http.post(base + "/mcp", content=json.dumps(INITIALIZE), headers=ACCEPT)
        async with connect(base + "/mcp") as client:
            listed = await client.list_tools()
    assert opened.status_code == 200
    assert opened.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in opened.headers
    assert [tool["name"] for tool in listed] == ["infer"]
