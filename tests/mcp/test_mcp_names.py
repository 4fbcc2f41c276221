"""`from_mcp` registers names every provider accepts, whatever the prefix or the remote names."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.mcp import ToolNameCollisionError, create_server, from_mcp
from orkestrel.tool import PORTABLE_NAME, PROVIDERS, Tool, ToolManager, export, portable_name
from support.mcp_client import connect

pytestmark = pytest.mark.anyio

REMOTE = [
    "lookup",
    "weather.now",
    "1st",
    "Ünïcode tool",
    "x" * 100,
    "y" * 90 + "-a",
    "y" * 90 + "-b",
]


def answering(name: str) -> Any:
    """A handler answering its tool's name (one parameter: the MCP server passes each call a
    `ToolContext`, which a second parameter would receive)."""
    return lambda args: name


def remote_server() -> ToolManager:
    tools = ToolManager()
    tools.add([Tool(name=name, execute=answering(name)) for name in REMOTE])
    return tools


@pytest.mark.parametrize("prefix", ["", "weather.", "w_", "my server/", "9"])
async def test_wrapped_names_pass_every_providers_rule(prefix: str) -> None:
    async with (
        connect(create_server(remote_server())) as client,
        from_mcp(client.client, prefix=prefix) as tools,
    ):
        names = [tool.name for tool in tools.tools()]
        assert len(set(names)) == len(REMOTE)
        assert all(PORTABLE_NAME.match(name) for name in names), names
        for provider in PROVIDERS:
            export(tools.definitions(), provider)  # type: ignore[arg-type]
        export(tools.definitions(), "openai", strict=True)
        results = await tools.execute(
            [{"id": str(i), "name": name, "arguments": {}} for i, name in enumerate(names)]
        )
    assert [result.get("value") for result in results] == REMOTE


async def test_a_dotted_prefix_becomes_an_underscore() -> None:
    async with (
        connect(create_server(remote_server())) as client,
        from_mcp(client.client, prefix="weather.") as tools,
    ):
        assert tools.tool("weather_lookup") is not None
        assert tools.tool("weather_weather_now") is not None


async def test_names_that_become_equal_are_a_collision() -> None:
    remote = ToolManager()
    remote.add([Tool(name="a.b", execute=lambda args: 1), Tool(name="a_b", execute=lambda args: 2)])
    with pytest.raises(ToolNameCollisionError, match="a_b"):
        async with connect(create_server(remote)) as client, from_mcp(client.client):
            pass


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("weather.lookup", "weather_lookup"),
        ("ok-name_1", "ok-name_1"),
        ("1st", "_1st"),
        ("-x", "_-x"),
        ("", "_"),
        ("a b/c", "a_b_c"),
    ],
)
def test_portable_name(name: str, expected: str) -> None:
    assert portable_name(name) == expected
    assert PORTABLE_NAME.match(portable_name(name))


def test_long_names_are_cut_with_a_hash_that_keeps_them_apart() -> None:
    first, second = portable_name("x" * 70 + "1"), portable_name("x" * 70 + "2")
    assert len(first) == len(second) == 64
    assert first != second
    assert portable_name("x" * 64) == "x" * 64
