"""`Tool`: definition binding, optional-field omission, identity, and no catching."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from orkestrel.tool import Tool, ToolManager

pytestmark = pytest.mark.anyio


async def test_sync_and_async_handlers_return_their_values() -> None:
    async def twice(args: dict[str, Any]) -> int:
        return int(args["n"]) * 2

    assert await Tool(name="sync", execute=lambda args: args["n"] + 1).execute({"n": 1}) == 2
    assert await Tool(name="async", execute=twice).execute({"n": 4}) == 8


async def test_arguments_are_passed_by_identity() -> None:
    seen: list[Any] = []
    args: dict[str, Any] = {"nested": {"deep": [1]}}
    await Tool(name="spy", execute=seen.append).execute(args)
    assert seen[0] is args


async def test_caller_is_forwarded_only_when_given() -> None:
    received: list[tuple[Any, ...]] = []

    def handler(*values: Any) -> None:
        received.append(values)

    tool = Tool(name="spy", execute=handler)
    caller = {"subject": "user-42"}
    await tool.execute({})
    await tool.execute({}, caller)
    await tool.execute({}, None)
    assert len(received[0]) == 1
    assert received[1][1] is caller
    assert received[2] == ({}, None)


async def test_one_parameter_handler_keeps_working_with_a_caller() -> None:
    tool = Tool(name="one", execute=lambda args: args["x"])
    assert await tool.execute({"x": 3}, {"subject": "someone"}) == 3


async def test_optional_fields_are_none_when_absent_and_kept_by_reference() -> None:
    schema: dict[str, Any] = {"type": "object"}
    bare = Tool(name="bare", execute=lambda args: None)
    full = Tool(name="full", execute=lambda a: a, description="d", summary="s", parameters=schema)
    assert (bare.description, bare.summary, bare.parameters) == (None, None, None)
    assert (full.description, full.summary) == ("d", "s")
    assert full.parameters is schema


@pytest.mark.parametrize("value", [None, 0, "", False, [], 0.0])
async def test_falsy_values_pass_through(value: Any) -> None:
    assert await Tool(name="falsy", execute=lambda args: value).execute({}) == value


async def test_tool_never_catches() -> None:
    def broken(args: dict[str, Any]) -> None:
        raise KeyError("sync failure")

    async def rejected(args: dict[str, Any]) -> None:
        raise RuntimeError("async failure")

    with pytest.raises(KeyError):
        await Tool(name="sync", execute=broken).execute({})
    with pytest.raises(RuntimeError, match="async failure"):
        await Tool(name="async", execute=rejected).execute({})


async def test_sync_handler_runs_off_the_event_loop_thread() -> None:
    loop_thread = threading.get_ident()
    ran_on = await Tool(name="where", execute=lambda args: threading.get_ident()).execute({})
    assert ran_on != loop_thread


async def test_sync_handler_returning_an_awaitable_is_awaited() -> None:
    async def later(value: int) -> int:
        return value + 1

    assert await Tool(name="lazy", execute=lambda args: later(args["v"])).execute({"v": 1}) == 2


async def test_async_callable_object_is_awaited() -> None:
    class Handler:
        async def __call__(self, args: dict[str, Any], caller: Any = None) -> Any:
            return caller

    assert await Tool(name="obj", execute=Handler()).execute({}, "ctx") == "ctx"


def test_the_name_is_read_only() -> None:
    from orkestrel.tool import ToolManager, tool

    plain = Tool(name="a", execute=lambda args: 1)

    @tool
    def decorated() -> int:
        """One."""
        return 1

    tools = ToolManager()
    tools.add([plain, decorated])
    for item in (plain, decorated):
        with pytest.raises(AttributeError):
            item.name = "renamed"  # type: ignore[misc]
    assert [d["name"] for d in tools.definitions()] == ["a", "decorated"]
    assert tools.tool("a") is plain


async def test_handlers_take_zero_one_or_two_parameters() -> None:
    def two(args: dict[str, Any], caller: Any) -> Any:
        return (args, caller)

    caller = {"subject": "u"}
    assert await Tool(name="zero", execute=lambda: 0).execute({"x": 1}) == 0
    assert await Tool(name="zero", execute=lambda: 0).execute({}, caller) == 0
    assert await Tool(name="one", execute=lambda args: args).execute({"x": 1}, caller) == {"x": 1}
    assert await Tool(name="two", execute=two).execute({}, caller) == ({}, caller)

    async def none() -> str:
        return "async"

    assert await Tool(name="async", execute=none).execute({}) == "async"


def test_execute_must_be_callable() -> None:
    with pytest.raises(TypeError, match="must be callable"):
        Tool(name="bad", execute="not a function")  # type: ignore[arg-type]


async def test_handler_declaring_caller_sees_none_when_a_call_carries_no_caller() -> None:
    seen: list[Any] = []

    async def reads_caller(args: dict[str, Any], caller: Any) -> str:
        seen.append(caller)
        return "ok"

    def sync_reads_caller(args: dict[str, Any], caller: Any) -> str:
        seen.append(caller)
        return "ok"

    tools = ToolManager()
    tools.add([Tool(name="a", execute=reads_caller), Tool(name="s", execute=sync_reads_caller)])
    results = await tools.execute(
        [{"id": "1", "name": "a", "arguments": {}}, {"id": "2", "name": "s", "arguments": {}}]
    )
    assert [result["success"] for result in results] == [True, True]
    assert seen == [None, None]
    assert await Tool(name="plain", execute=reads_caller).execute({}) == "ok"
