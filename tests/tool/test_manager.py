"""`ToolManager`: order, replacement, projection, and isolated single and batch execution."""

from __future__ import annotations

import functools
import threading
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from orkestrel.tool import Tool, ToolCall, ToolManager

pytestmark = pytest.mark.anyio


def make(name: str, handler: Any = None, **options: Any) -> Tool:
    return Tool(name=name, execute=handler or (lambda args: name), **options)


def call(id_: str, name: str, arguments: dict[str, Any] | None = None, **extra: Any) -> ToolCall:
    return {"id": id_, "name": name, "arguments": {} if arguments is None else arguments, **extra}  # type: ignore[typeddict-item]


def test_starts_empty() -> None:
    tools = ToolManager()
    assert (tools.count, tools.tools(), tools.definitions()) == (0, [], [])


def test_add_keeps_the_exact_instance_and_insertion_order() -> None:
    tools = ToolManager()
    first, second, third = make("a"), make("b"), make("c")
    tools.add(first)
    tools.add([second, third])
    tools.add([])
    assert tools.tool("a") is first
    assert tools.tool("ghost") is None
    assert [tool.name for tool in tools.tools()] == ["a", "b", "c"]
    assert tools.count == 3


def test_replacing_a_name_keeps_its_position() -> None:
    tools = ToolManager()
    tools.add([make("a"), make("b"), make("c")])
    newer = make("b")
    tools.add(newer)
    assert [tool.name for tool in tools.tools()] == ["a", "b", "c"]
    assert tools.tool("b") is newer


def test_last_duplicate_in_a_batch_wins() -> None:
    tools = ToolManager()
    loser, winner = make("x"), make("x")
    tools.add((loser, make("y"), winner))
    assert tools.tool("x") is winner
    assert tools.count == 2


def test_projections_are_fresh() -> None:
    tools = ToolManager()
    tools.add(make("a"))
    listing = tools.tools()
    listing.clear()
    definitions = tools.definitions()
    definitions[0]["name"] = "mutated"
    assert tools.count == 1
    assert tools.definitions() == [{"name": "a"}]
    assert tools.definitions()[0] is not tools.definitions()[0]


def test_definitions_omit_absent_keys_and_keep_schema_identity() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    tools = ToolManager()
    tools.add(
        [make("bare"), make("described", description="full"), make("typed", parameters=schema)]
    )
    bare, described, typed = tools.definitions()
    assert bare == {"name": "bare"}
    assert described == {"name": "described", "description": "full"}
    assert typed == {"name": "typed", "parameters": schema}
    assert typed["parameters"] is schema
    assert "execute" not in typed


def test_summary_is_advertised_in_place_of_the_description() -> None:
    tools = ToolManager()
    tools.add(make("add", description="Add two numbers, long form.", summary="Add.", parameters={}))
    (definition,) = tools.definitions()
    assert list(definition) == ["name", "description", "parameters"]
    assert definition["description"] == "Add."
    found = tools.tool("add")
    assert found is not None
    assert found.description == "Add two numbers, long form."


async def test_single_calls_resolve_for_sync_and_async_handlers() -> None:
    async def slow(args: dict[str, Any]) -> int:
        await anyio.lowlevel.checkpoint()
        return 7

    tools = ToolManager()
    tools.add([make("sync", lambda args: args["v"]), make("async", slow)])
    assert await tools.execute(call("1", "sync", {"v": 3})) == {
        "id": "1",
        "name": "sync",
        "success": True,
        "value": 3,
    }
    result = await tools.execute(call("2", "async"))
    assert result["success"] is True
    assert result["value"] == 7


async def test_arguments_and_caller_are_forwarded_by_identity() -> None:
    seen: list[tuple[Any, ...]] = []

    def spy(*values: Any) -> None:
        seen.append(values)

    tools = ToolManager()
    tools.add(make("spy", spy))
    empty: dict[str, Any] = {}
    caller = object()
    await tools.execute(call("1", "spy", empty))
    await tools.execute({"id": "2", "name": "spy", "arguments": empty, "caller": caller})
    assert seen[0] == (empty,)
    assert seen[0][0] is empty
    assert seen[1][1] is caller


async def test_missing_arguments_become_an_empty_record() -> None:
    tools = ToolManager()
    tools.add(make("echo", lambda args: args))
    result = await tools.execute({"id": "1", "name": "echo"})  # type: ignore[typeddict-item]
    assert result == {"id": "1", "name": "echo", "success": True, "value": {}}


@pytest.mark.parametrize("value", [None, 0, "", False, 0.0, []])
async def test_falsy_success_values_keep_the_value_key(value: Any) -> None:
    tools = ToolManager()
    tools.add(make("falsy", lambda args: value))
    result = await tools.execute(call("1", "falsy"))
    assert result == {"id": "1", "name": "falsy", "success": True, "value": value}
    assert "error" not in result


async def test_failures_are_isolated_into_results() -> None:
    class DomainError(ValueError):
        pass

    def sync_failure(args: dict[str, Any]) -> None:
        raise TypeError("wrong value")

    async def async_failure(args: dict[str, Any]) -> None:
        raise DomainError("domain says no")

    tools = ToolManager()
    tools.add([make("sync", sync_failure), make("async", async_failure)])
    assert await tools.execute(call("1", "sync")) == {
        "id": "1",
        "name": "sync",
        "success": False,
        "error": "wrong value",
    }
    failure = await tools.execute(call("2", "async"))
    assert failure == {"id": "2", "name": "async", "success": False, "error": "domain says no"}
    assert "value" not in failure


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (ValueError(42), "42"),
        (OSError(2, "gone"), "[Errno 2] gone"),
        (RuntimeError("two\nlines"), "two\nlines"),
    ],
)
async def test_exception_text_is_str_of_the_exception(error: Exception, message: str) -> None:
    def fail(args: dict[str, Any]) -> None:
        raise error

    tools = ToolManager()
    tools.add(make("fail", fail))
    assert (await tools.execute(call("1", "fail")))["error"] == message  # type: ignore[typeddict-item]


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (KeyError("right"), "KeyError: missing argument 'right'"),
        (KeyError("left"), "KeyError: 'left'"),
        (KeyError(3), "KeyError: 3"),
        (RuntimeError(), "RuntimeError"),
        (ValueError("  "), "ValueError"),
        (AssertionError(), "AssertionError"),
    ],
)
async def test_an_exception_without_a_useful_text_gets_one_line_naming_its_type(
    error: Exception, message: str
) -> None:
    def fail(args: dict[str, Any]) -> None:
        raise error

    tools = ToolManager()
    tools.add(make("fail", fail))
    result = await tools.execute(call("1", "fail", {"left": 1}))
    assert result == {"id": "1", "name": "fail", "success": False, "error": message}
    with pytest.raises(type(error)):
        await make("fail", fail).execute({})


async def test_a_handler_reading_a_missing_argument_is_told_which() -> None:
    tools = ToolManager()
    tools.add(make("add", lambda args: args["left"] + args["right"]))
    result = await tools.execute(call("1", "add", {"left": 1}))
    assert result["error"] == "KeyError: missing argument 'right'"  # type: ignore[typeddict-item]


class RaisingStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class NonStringStr(Exception):
    def __str__(self) -> Any:
        return 42


class NoStr(Exception):
    __str__ = None  # type: ignore[assignment]


@pytest.mark.parametrize("error_type", [RaisingStr, NonStringStr, NoStr])
async def test_unprintable_exceptions_become_unknown_thrown_value(
    error_type: type[Exception],
) -> None:
    def fail(args: dict[str, Any]) -> None:
        raise error_type()

    tools = ToolManager()
    tools.add(make("fail", fail))
    result = await tools.execute(call("1", "fail"))
    assert result == {"id": "1", "name": "fail", "success": False, "error": "Unknown thrown value"}


async def test_unknown_tool_is_a_failure_result() -> None:
    assert await ToolManager().execute(call("9", "ghost")) == {
        "id": "9",
        "name": "ghost",
        "success": False,
        "error": "tool not found: ghost",
    }


async def test_base_exceptions_propagate() -> None:
    class Stop(BaseException):
        pass

    def stop(args: dict[str, Any]) -> None:
        raise Stop

    tools = ToolManager()
    tools.add(make("stop", stop))
    with pytest.raises(Stop):
        await tools.execute(call("1", "stop"))
    tools.add(make("ok", lambda args: 1))
    with pytest.raises(Stop):
        await tools.execute([call("1", "ok"), call("2", "stop")])


class Unreadable(dict[str, Any]):
    def __init__(self, broken: str, **items: Any) -> None:
        super().__init__(**items)
        self.broken = broken

    def __getitem__(self, key: str) -> Any:
        if key == self.broken:
            raise RuntimeError(f"cannot read {key}")
        return super().__getitem__(key)


@pytest.mark.parametrize("field", ["id", "name"])
async def test_a_call_whose_id_or_name_cannot_be_read_raises(field: str) -> None:
    ran: list[str] = []
    tools = ToolManager()
    tools.add(make("echo", lambda args: ran.append("ran")))
    hostile = Unreadable(field, id="1", name="echo", arguments={})
    with pytest.raises(RuntimeError, match=f"cannot read {field}"):
        await tools.execute(hostile)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match=f"cannot read {field}"):
        await tools.execute([call("0", "echo"), hostile])  # type: ignore[list-item]
    assert ran == []


async def test_unreadable_arguments_are_a_failure_result() -> None:
    tools = ToolManager()
    tools.add(make("echo", lambda args: args))
    hostile = Unreadable("arguments", id="1", name="echo", arguments={})
    result = await tools.execute(hostile)  # type: ignore[arg-type]
    assert result == {"id": "1", "name": "echo", "success": False, "error": "cannot read arguments"}


async def test_mixed_batch_is_correlated_in_input_order() -> None:
    def fail(args: dict[str, Any]) -> None:
        raise ValueError("hostile")

    tools = ToolManager()
    tools.add([make("ok", lambda args: args["n"]), make("fail", fail)])
    results = await tools.execute(
        [
            call("1", "ok", {"n": 1}),
            call("2", "fail"),
            call("3", "ghost"),
            call("1", "ok", {"n": 4}),
        ]
    )
    assert results == [
        {"id": "1", "name": "ok", "success": True, "value": 1},
        {"id": "2", "name": "fail", "success": False, "error": "hostile"},
        {"id": "3", "name": "ghost", "success": False, "error": "tool not found: ghost"},
        {"id": "1", "name": "ok", "success": True, "value": 4},
    ]


async def test_batch_answers_in_input_order_when_settling_out_of_order() -> None:
    settled: list[str] = []

    async def slow(args: dict[str, Any]) -> str:
        await anyio.sleep(0.025)
        settled.append("slow")
        return "slow"

    async def fast(args: dict[str, Any]) -> str:
        settled.append("fast")
        return "fast"

    tools = ToolManager()
    tools.add([make("slow", slow), make("fast", fast)])
    results = await tools.execute([call("1", "slow"), call("2", "fast")])
    assert settled == ["fast", "slow"]
    assert [result["value"] for result in results] == ["slow", "fast"]  # type: ignore[typeddict-item]


async def test_empty_and_large_batches() -> None:
    async def echo(args: dict[str, Any]) -> Any:
        await anyio.lowlevel.checkpoint()
        return args["i"]

    tools = ToolManager()
    tools.add(make("echo", echo))
    assert await tools.execute([]) == []
    results = await tools.execute([call(str(i), "echo", {"i": i}) for i in range(200)])
    assert [result["id"] for result in results] == [str(i) for i in range(200)]
    assert [result["value"] for result in results] == list(range(200))  # type: ignore[typeddict-item]


async def test_sync_handlers_in_a_batch_run_concurrently() -> None:
    ready = threading.Event()

    def waiter(args: dict[str, Any]) -> bool:
        return ready.wait(timeout=5)

    def setter(args: dict[str, Any]) -> bool:
        ready.set()
        return True

    tools = ToolManager()
    tools.add([make("wait", waiter), make("set", setter)])
    results = await tools.execute([call("1", "wait"), call("2", "set")])
    assert [result["value"] for result in results] == [True, True]  # type: ignore[typeddict-item]


async def test_timeout_fails_a_slow_call_and_cancels_its_work() -> None:
    finished: list[str] = []
    cancelled: list[str] = []

    async def slow(args: dict[str, Any]) -> str:
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            cancelled.append("slow")
            raise
        finished.append("slow")
        return "late"

    tools = ToolManager()
    tools.add([make("slow", slow), make("fast", lambda args: "quick")])
    results = await tools.execute([call("1", "slow"), call("2", "fast")], timeout=0.05)
    assert results == [
        {"id": "1", "name": "slow", "success": False, "error": "tool timed out after 50 ms"},
        {"id": "2", "name": "fast", "success": True, "value": "quick"},
    ]
    assert cancelled == ["slow"]
    assert finished == []
    single = await tools.execute(call("3", "slow"), timeout=0.0015)
    assert single == {
        "id": "3",
        "name": "slow",
        "success": False,
        "error": "tool timed out after 1.5 ms",
    }


async def test_limit_caps_concurrency() -> None:
    running = 0
    peak = 0

    async def busy(args: dict[str, Any]) -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.01)
        running -= 1

    tools = ToolManager()
    tools.add(make("busy", busy))
    results = await tools.execute([call(str(i), "busy") for i in range(10)], limit=3)
    assert all(result["success"] for result in results)
    assert peak == 3


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": 0},
        {"timeout": -1},
        {"timeout": True},
        {"timeout": float("nan")},
        {"limit": 0},
        {"limit": 1.5},
    ],
)
async def test_invalid_execution_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="must be a positive"):
        await ToolManager().execute(call("1", "x"), **options)


def test_remove_and_clear() -> None:
    tools = ToolManager()
    tools.add([make("a"), make("b"), make("c"), make("d")])
    assert tools.remove("a") is True
    assert tools.remove("a") is False
    assert tools.remove(["b", "ghost"]) is False
    assert tools.tool("b") is None
    assert tools.remove(["c", "d"]) is True
    assert tools.remove([]) is False
    tools.add([make("x"), make("y")])
    tools.remove("x")
    tools.add(make("x"))
    assert [tool.name for tool in tools.tools()] == ["y", "x"]
    tools.clear()
    tools.clear()
    assert tools.count == 0


async def test_removed_tool_is_not_found_until_added_again() -> None:
    tools = ToolManager()
    tools.add(make("echo", lambda args: "back"))
    tools.remove("echo")
    assert (await tools.execute(call("1", "echo")))["success"] is False
    tools.add(make("echo", lambda args: "back"))
    assert (await tools.execute(call("2", "echo")))["success"] is True


async def test_a_base_exception_in_a_batch_cancels_the_other_calls() -> None:
    class Stop(BaseException):
        pass

    cancelled: list[str] = []

    async def slow(args: dict[str, Any]) -> None:
        try:
            await anyio.sleep(5)
        except anyio.get_cancelled_exc_class():
            cancelled.append("slow")
            raise

    async def stop(args: dict[str, Any]) -> None:
        await anyio.sleep(0.01)
        raise Stop

    tools = ToolManager()
    tools.add([make("slow", slow), make("stop", stop)])
    with anyio.fail_after(2), pytest.raises(Stop):
        await tools.execute([call("1", "slow"), call("2", "stop")])
    assert cancelled == ["slow"]


class _Name(str):
    pass


class _Unhashable(str):
    def __hash__(self) -> int:
        raise RuntimeError("no hash")


class _AsyncCall:
    async def __call__(self, args: Any) -> Any:
        return ["called", args]


class _Loud(Tool):
    async def execute(self, args: Any, caller: Any = None) -> Any:
        return ("overridden", await super().execute(args))


async def test_a_plain_call_answers_as_the_general_path_does() -> None:
    """One dict call with no options takes a shorter path than a batch or a timeout; both must
    give the same result for every kind of tool, and follow a tool or schema replaced in place."""

    async def one(args: dict[str, Any]) -> Any:
        # A missing `arguments` is a fresh record each call: marking it shows if it is shared.
        if not args:
            args["marked"] = True
            return "empty"
        return dict(args)

    async def two(args: Any, caller: Any) -> Any:
        return (args, caller)

    async def none() -> str:
        return "none"

    async def boom(args: Any) -> Any:
        raise KeyError("left")

    class Later:
        def __await__(self) -> Any:
            yield from anyio.lowlevel.checkpoint().__await__()
            return "later"

    optional = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
        "required": ["n"],
    }
    tools = ToolManager()
    tools.add(
        [
            make("one", one, parameters=optional),
            make("two", two),
            make("none", none),
            make("boom", boom),
            make("sync", lambda args: args),
            make("awaitable", lambda args: Later()),
            _Loud(name="loud", execute=one),
            make("partial", functools.partial(two, caller="bound")),
            make("object", _AsyncCall()),
        ]
    )
    calls: list[Any] = [
        {"id": "1", "name": "one", "arguments": {"n": 1, "s": None}},
        {"id": "2", "name": "one"},
        {"id": "3", "name": "two", "arguments": {"a": 1}, "caller": "me"},
        {"id": "4", "name": "two", "arguments": {"a": 1}},
        {"id": "5", "name": "none", "arguments": {"a": 1}, "caller": "me"},
        {"id": "6", "name": "boom", "arguments": {}},
        {"id": "7", "name": "sync", "arguments": {"x": [1]}},
        {"id": "8", "name": "awaitable", "arguments": {}},
        {"id": "9", "name": "loud", "arguments": {"n": 2}},
        {"id": "10", "name": _Name("one"), "arguments": {"n": 3}},
        {"id": "11", "name": "ghost", "arguments": {}},
        {"id": "12", "name": 5, "arguments": {}},
        {"id": "13", "name": "partial", "arguments": {"p": 1}},
        {"id": "14", "name": "object", "arguments": {"o": 1}},
        {"id": "15", "name": ["one"], "arguments": {}},
        {"id": "16", "name": "one", "arguments": {"n": 4}, "caller": "ignored"},
    ]

    async def both() -> None:
        for item in calls:
            # The plain call first, so it meets a replaced tool before the general path does.
            plain = await tools.execute(item)
            assert plain == (await tools.execute([item]))[0], item
            assert plain == await tools.execute(item, timeout=60), item

    await both()
    assert (await tools.execute(calls[12]))["value"] == ({"p": 1}, "bound")
    assert (await tools.execute(calls[13]))["value"] == ["called", {"o": 1}]
    # A name whose hash raises cannot be read: it escapes every path alike.
    liar: Any = {"id": "17", "name": _Unhashable("one"), "arguments": {}}
    for options in ({}, {"timeout": 60}):
        with pytest.raises(RuntimeError, match="no hash"):
            await tools.execute(liar, **options)

    # The same name now holds another tool, then that tool a new schema: neither may be
    # answered from what was learnt about the old one.
    async def newer(args: Any) -> Any:
        return ["newer", args]

    tools.add(make("one", newer, parameters=optional))
    await both()
    assert (await tools.execute(calls[0]))["value"] == ["newer", {"n": 1}]
    replaced = tools.tool("one")
    assert replaced is not None
    replaced.parameters = None
    await both()
    assert (await tools.execute(calls[0]))["value"] == ["newer", {"n": 1, "s": None}]
