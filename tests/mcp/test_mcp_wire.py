"""The bridge end to end with the SDK's own client: in process, over stdio to a subprocess, and
over streamable HTTP to a subprocess on a free loopback port, in both protocol eras."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from orkestrel.mcp import create_server
from support.mcp_client import MODES, connect, stdio, text

APP = Path(__file__).resolve().parent / "app.py"

pytestmark = pytest.mark.anyio

WIRES = ["memory", "stdio", "http"]


@pytest.fixture(params=[(wire, mode) for wire in WIRES for mode in MODES], ids="-".join)
def client(request: pytest.FixtureRequest, app: ModuleType) -> Callable[[], Any]:
    """Builds an unconnected client of the installed SDK for one wire and protocol era."""
    wire, mode = request.param
    if wire == "memory":
        return lambda: connect(create_server(app.build()), mode=mode)
    if wire == "stdio":
        return lambda: connect(stdio(sys.executable, [str(APP)]), mode=mode)
    url = request.getfixturevalue("app_url")
    return lambda: connect(url, mode=mode)


async def test_listing_is_the_managers_definitions(
    client: Callable[[], Any], app: ModuleType
) -> None:
    definitions = app.build().definitions()
    async with client() as session:
        listed = await session.list_tools()
        capabilities = session.capabilities()
    assert capabilities["tools"] == {"listChanged": True}
    assert [tool["name"] for tool in listed] == [item["name"] for item in definitions]
    for tool, definition in zip(listed, definitions, strict=True):
        assert tool.get("description") == definition.get("description")
        assert tool["inputSchema"] == definition.get(
            "parameters", {"type": "object", "properties": {}}
        )
    add = listed[0]
    assert add["description"] == "Add two numbers."
    assert add["annotations"] == {
        "readOnlyHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    shout = next(tool for tool in listed if tool["name"] == "shout")
    assert shout["annotations"] == {"destructiveHint": False, "title": "Shout"}
    assert "annotations" not in next(tool for tool in listed if tool["name"] == "echo")


async def test_success_is_json_text_and_structured_content_for_dicts_and_plain_text_for_strings(
    client: Callable[[], Any],
) -> None:
    async with client() as session:
        number = await session.call_tool("add", {"left": 2, "right": 3.5})
        record = await session.call_tool("echo", {"name": "Zoë", "tags": [1, None, True]})
        shouted = await session.call_tool("shout", {"text": "quiet"})
    assert (number.get("isError", False), text(number), number.get("structuredContent")) == (
        False,
        "5.5",
        None,
    )
    assert record.get("isError", False) is False
    assert json.loads(text(record)) == {"name": "Zoë", "tags": [1, None, True]}
    assert text(record) == '{"name":"Zoë","tags":[1,null,true]}'
    assert record.get("structuredContent") == {"name": "Zoë", "tags": [1, None, True]}
    assert (text(shouted), shouted.get("structuredContent")) == ("QUIET", None)


async def test_failures_are_is_error_results_with_the_message(
    client: Callable[[], Any],
) -> None:
    async with client() as session:
        invalid = await session.call_tool("add", {"left": "two", "right": 1})
        missing = await session.call_tool("ghost", {})
        crashed = await session.call_tool("shout", {})
        two_lines = await session.call_tool("multiline", {})
        cyclic = await session.call_tool("loop", {})
    assert (invalid.get("isError", False), text(invalid)) == (
        True,
        "add: left and right must be numbers",
    )
    assert "\n" not in text(invalid)
    assert (missing.get("isError", False), text(missing)) == (True, "tool not found: ghost")
    assert (crashed.get("isError", False), text(crashed)) == (
        True,
        "KeyError: missing argument 'text'",
    )
    assert (two_lines.get("isError", False), text(two_lines)) == (True, "first line\nsecond line")
    assert cyclic.get("isError", False) is True
    assert text(cyclic).startswith("tool result is not JSON-encodable: ")
    for result in (invalid, missing, crashed, two_lines, cyclic):
        assert result.get("structuredContent") is None


async def test_client_cancellation_cancels_the_running_call(
    client: Callable[[], Any], app: ModuleType, tmp_path: Path
) -> None:
    marker = tmp_path / "watch"
    async with client() as session:
        with anyio.move_on_after(30) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(session.call_tool, "watch", {"marker": str(marker)})
                await app.poll(lambda: app.running(marker))
                group.cancel_scope.cancel()
            await app.poll(lambda: app.settled(marker))
        assert not scope.cancelled_caught
        after = await session.call_tool("add", {"left": 1, "right": 1})
    assert await anyio.Path(marker).read_text() == "cancelled"
    assert text(after) == "2"


async def test_fifty_concurrent_calls_all_answer(client: Callable[[], Any]) -> None:
    group_id = uuid.uuid4().hex
    results: dict[int, dict[str, Any]] = {}

    async def one(index: int) -> None:
        arguments = {"group": group_id, "size": 50, "index": index}
        results[index] = await session.call_tool("meet", arguments)

    async with client() as session, anyio.create_task_group() as group:
        for index in range(50):
            group.start_soon(one, index)
    assert sorted(results) == list(range(50))
    assert all(
        (result.get("isError", False), text(result)) == (False, str(index))
        for index, result in results.items()
    )


async def test_a_slow_call_does_not_block_a_fast_one(
    client: Callable[[], Any], tmp_path: Path
) -> None:
    opened = tmp_path / "open"
    slow: list[dict[str, Any]] = []

    async def wait_for_gate() -> None:
        slow.append(await session.call_tool("gate", {"path": str(opened)}))

    async with client() as session, anyio.create_task_group() as group:
        group.start_soon(wait_for_gate)
        fast = await session.call_tool("add", {"left": 20, "right": 22})
        assert slow == []
        await anyio.Path(opened).touch()
    assert text(fast) == "42"
    assert text(slow[0]) == "opened"


async def test_arguments_are_optional(client: Callable[[], Any]) -> None:
    async with client() as session:
        result = await session.call_tool("echo")
    assert (text(result), result.get("structuredContent")) == ("{}", {})
