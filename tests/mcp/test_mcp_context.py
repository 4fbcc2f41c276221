"""What a served handler can say while it runs (progress, log entries), what it declares it
returns (`outputSchema`, `structuredContent`), and a listing that announces its changes; with
the installed SDK's own client, in process and over stdio and HTTP."""

from __future__ import annotations

import dataclasses
import sys
import typing
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from orkestrel.mcp import create_server
from orkestrel.mcp.helpers import tool_wire
from orkestrel.tool import Context, ToolContext, ToolManager, create_tool, tool
from support.mcp_client import MODES, connect, stdio, text, until

pytestmark = pytest.mark.anyio

APP = Path(__file__).resolve().parent / "app.py"


class Forecast(BaseModel):
    city: str
    celsius: float


class Row(TypedDict):
    id: int
    name: str


@dataclasses.dataclass
class Point:
    x: int
    y: int


@tool
def forecast(city: str) -> Forecast:
    """Tells the weather in a city."""
    return Forecast(city=city, celsius=21.5)


@tool
def row(id: int) -> Row:
    """Reads one row."""
    return {"id": id, "name": f"row {id}"}


@tool
async def point(x: int, ctx: Context) -> Point:
    """Makes a point, reporting as it goes."""
    await ctx.report_progress(1, 2, "half way")
    await ctx.info(f"making a point at {x}")
    await ctx.report_progress(2, 2)
    return Point(x=x, y=-x)


@tool
def plain(x: int) -> int:
    """Doubles a number."""
    return 2 * x


def toolset() -> ToolManager:
    manager = ToolManager()
    manager.add([forecast, row, point, plain])
    return manager


@pytest.mark.parametrize("mode", MODES)
async def test_structured_returns_advertise_an_output_schema_and_validate(mode: str) -> None:
    async with connect(create_server(toolset()), mode=mode) as client:
        listed = {entry["name"]: entry for entry in await client.list_tools()}
        answers = {
            "forecast": await client.call_tool("forecast", {"city": "Oslo"}),
            "row": await client.call_tool("row", {"id": 3}),
            "point": await client.call_tool("point", {"x": 4}),
        }
    assert "outputSchema" not in listed["plain"]
    for name, answer in answers.items():
        schema = listed[name]["outputSchema"]
        assert schema["type"] == "object"
        assert answer.get("isError", False) is False
        jsonschema.validate(answer["structuredContent"], schema)
    assert answers["forecast"]["structuredContent"] == {"city": "Oslo", "celsius": 21.5}
    assert answers["row"]["structuredContent"] == {"id": 3, "name": "row 3"}
    assert answers["point"]["structuredContent"] == {"x": 4, "y": -4}
    assert text(answers["point"]) == '{"x":4,"y":-4}'
    assert set(listed["forecast"]["outputSchema"]["required"]) == {"city", "celsius"}


@pytest.mark.parametrize("mode", MODES)
async def test_progress_and_log_entries_reach_the_client(mode: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with connect(create_server(toolset()), mode=mode) as client:
        answer = await client.call_tool("point", {"x": 1}, progress=on_progress)
        await until(
            lambda: any(n["method"] == "notifications/message" for n in client.notifications)
        )
    assert answer["structuredContent"] == {"x": 1, "y": -1}
    assert progress == [(1, 2, "half way"), (2, 2, None)]
    logged = [n["params"] for n in client.notifications if n["method"] == "notifications/message"]
    assert logged == [{"level": "info", "data": "making a point at 1"}]


async def test_a_plain_handler_gets_the_context_as_its_caller() -> None:
    seen: list[Any] = []

    async def handler(args: Any, caller: Any) -> str:
        seen.append(caller)
        await caller.warning("careful")
        return "ok"

    manager = ToolManager()
    manager.add(create_tool(name="careful", execute=handler))
    async with connect(create_server(manager)) as client:
        answer = await client.call_tool("careful", {})
    assert text(answer) == "ok"
    assert isinstance(seen[0], ToolContext)


async def test_in_process_the_context_parameter_gets_its_default() -> None:
    result = await toolset().execute({"id": "1", "name": "plain", "arguments": {"x": 2}})
    assert result == {"id": "1", "name": "plain", "success": True, "value": 4}
    silent = ToolContext()
    await silent.report_progress(1)
    await silent.log("debug", {"any": "json"})
    called = await point.execute({"x": 5}, silent)
    assert called == Point(x=5, y=-5)


async def test_the_listing_announces_a_tool_added_by_a_call() -> None:
    manager = ToolManager()

    def grow(args: Any) -> str:
        if manager.tool("grown") is None:
            manager.add(create_tool(name="grown", execute=lambda a: "new"))
        return "grew"

    manager.add(create_tool(name="grow", execute=grow))
    async with connect(create_server(manager), mode="legacy") as client:
        assert client.capabilities()["tools"] == {"listChanged": True}
        before = [entry["name"] for entry in await client.list_tools()]
        await client.call_tool("grow", {})
        await until(lambda: bool(client.notifications))
        after = [entry["name"] for entry in await client.list_tools(refresh=True)]
        await client.call_tool("grow", {})
    assert before == ["grow"]
    assert after == ["grow", "grown"]
    changed = [n for n in client.notifications if n["method"] == "notifications/tools/list_changed"]
    assert len(changed) == 1


async def test_a_served_process_announces_changes_made_outside_any_call(
    app: ModuleType, tmp_path: Path
) -> None:
    flag = tmp_path / "add-a-tool"
    env = {"ORKESTREL_TEST_GROW_ON": str(flag)}
    async with connect(stdio(sys.executable, [str(APP)], env), mode="legacy") as client:
        names = [entry["name"] for entry in await client.list_tools()]
        flag.touch()
        await until(lambda: bool(client.notifications))
        grown = [entry["name"] for entry in await client.list_tools(refresh=True)]
    assert "grown" not in names
    assert grown == [*names, "grown"]
    assert client.notifications[0]["method"] == "notifications/tools/list_changed"


class PlainRow(typing.TypedDict):
    id: int


@tool
def lookup(id: int) -> PlainRow:
    return {"id": id}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="typing.TypedDict is described from 3.12")
def test_a_typing_typeddict_return_warns_that_no_output_schema_is_listed() -> None:
    with pytest.warns(UserWarning, match=r"'.*lookup'.*'PlainRow'.*typing_extensions\.TypedDict"):
        entry = tool_wire(lookup)
    assert "outputSchema" not in entry
