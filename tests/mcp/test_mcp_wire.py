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
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from orkestrel.mcp import create_server

APP = Path(__file__).resolve().parent / "app.py"

pytestmark = pytest.mark.anyio

WIRES = ["memory", "stdio", "http"]
MODES = ["auto", "legacy"]


@pytest.fixture(params=[(wire, mode) for wire in WIRES for mode in MODES], ids="-".join)
def connect(request: pytest.FixtureRequest, app: ModuleType) -> Callable[[], Client]:
    """Builds an unconnected client for one wire and protocol era."""
    wire, mode = request.param
    if wire == "memory":
        return lambda: Client(create_server(app.build()), mode=mode)
    if wire == "stdio":
        parameters = StdioServerParameters(command=sys.executable, args=[str(APP)])
        return lambda: Client(parameters, mode=mode)
    url = request.getfixturevalue("app_url")
    return lambda: Client(url, mode=mode)


def text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_listing_is_the_managers_definitions(
    connect: Callable[[], Client], app: ModuleType
) -> None:
    definitions = app.build().definitions()
    async with connect() as client:
        listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == [item["name"] for item in definitions]
    for tool, definition in zip(listed, definitions, strict=True):
        assert tool.description == definition.get("description")
        assert tool.input_schema == definition.get(
            "parameters", {"type": "object", "properties": {}}
        )
    add = listed[0]
    assert add.description == "Add two numbers."
    assert add.annotations == types.ToolAnnotations(
        read_only_hint=True, idempotent_hint=True, open_world_hint=False
    )
    shout = next(tool for tool in listed if tool.name == "shout")
    assert shout.annotations == types.ToolAnnotations(destructive_hint=False, title="Shout")
    assert next(tool for tool in listed if tool.name == "echo").annotations is None


async def test_success_is_json_text_and_structured_content_for_dicts(
    connect: Callable[[], Client],
) -> None:
    async with connect() as client:
        number = await client.call_tool("add", {"left": 2, "right": 3.5})
        record = await client.call_tool("echo", {"name": "Zoë", "tags": [1, None, True]})
        shouted = await client.call_tool("shout", {"text": "quiet"})
    assert (number.is_error, text(number), number.structured_content) == (False, "5.5", None)
    assert record.is_error is False
    assert json.loads(text(record)) == {"name": "Zoë", "tags": [1, None, True]}
    assert text(record) == '{"name":"Zoë","tags":[1,null,true]}'
    assert record.structured_content == {"name": "Zoë", "tags": [1, None, True]}
    assert (text(shouted), shouted.structured_content) == ('"QUIET"', None)


async def test_failures_are_is_error_results_with_the_message(
    connect: Callable[[], Client],
) -> None:
    async with connect() as client:
        invalid = await client.call_tool("add", {"left": "two", "right": 1})
        missing = await client.call_tool("ghost", {})
        crashed = await client.call_tool("shout", {})
        two_lines = await client.call_tool("multiline", {})
        cyclic = await client.call_tool("loop", {})
    assert (invalid.is_error, text(invalid)) == (True, "add: left and right must be numbers")
    assert "\n" not in text(invalid)
    assert (missing.is_error, text(missing)) == (True, "tool not found: ghost")
    assert (crashed.is_error, text(crashed)) == (True, "KeyError: missing argument 'text'")
    assert (two_lines.is_error, text(two_lines)) == (True, "first line\nsecond line")
    assert cyclic.is_error is True
    assert text(cyclic).startswith("tool result is not JSON-encodable: ")
    for result in (invalid, missing, crashed, two_lines, cyclic):
        assert result.structured_content is None


async def test_client_cancellation_cancels_the_running_call(
    connect: Callable[[], Client], app: ModuleType, tmp_path: Path
) -> None:
    marker = tmp_path / "watch"
    async with connect() as client:
        with anyio.move_on_after(30) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(client.call_tool, "watch", {"marker": str(marker)})
                await app.poll(lambda: app.running(marker))
                group.cancel_scope.cancel()
            await app.poll(lambda: app.settled(marker))
        assert not scope.cancelled_caught
        after = await client.call_tool("add", {"left": 1, "right": 1})
    assert await anyio.Path(marker).read_text() == "cancelled"
    assert text(after) == "2"


async def test_fifty_concurrent_calls_all_answer(connect: Callable[[], Client]) -> None:
    group_id = uuid.uuid4().hex
    results: dict[int, types.CallToolResult] = {}

    async def one(index: int) -> None:
        arguments = {"group": group_id, "size": 50, "index": index}
        results[index] = await client.call_tool("meet", arguments)

    async with connect() as client, anyio.create_task_group() as group:
        for index in range(50):
            group.start_soon(one, index)
    assert sorted(results) == list(range(50))
    assert all(
        (result.is_error, text(result)) == (False, str(index)) for index, result in results.items()
    )


async def test_a_slow_call_does_not_block_a_fast_one(
    connect: Callable[[], Client], tmp_path: Path
) -> None:
    opened = tmp_path / "open"
    slow: list[types.CallToolResult] = []

    async def wait_for_gate() -> None:
        slow.append(await client.call_tool("gate", {"path": str(opened)}))

    async with connect() as client, anyio.create_task_group() as group:
        group.start_soon(wait_for_gate)
        fast = await client.call_tool("add", {"left": 20, "right": 22})
        assert slow == []
        await anyio.Path(opened).touch()
    assert text(fast) == "42"
    assert text(slow[0]) == '"opened"'


async def test_arguments_are_optional(connect: Callable[[], Client]) -> None:
    async with connect() as client:
        result: Any = await client.call_tool("echo")
    assert (text(result), result.structured_content) == ("{}", {})
