"""Hypothesis laws of the registry: it behaves as an ordered map, and batches stay correlated."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.tool import Tool, ToolCall, ToolManager

names = st.sampled_from(["a", "b", "c", "d", "e"])
operations = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.lists(names, max_size=4)),
        st.tuples(st.just("remove"), st.lists(names, max_size=4)),
        st.tuples(st.just("remove_one"), names),
        st.tuples(st.just("clear"), st.just(None)),
    ),
    max_size=40,
)


@given(operations)
def test_registry_matches_an_ordered_map_model(steps: list[tuple[str, Any]]) -> None:
    tools = ToolManager()
    model: dict[str, Tool] = {}
    for operation, argument in steps:
        if operation == "add":
            batch = [Tool(name=name, execute=lambda args: None) for name in argument]
            tools.add(batch)
            for tool in batch:
                model[tool.name] = tool
        elif operation == "remove":
            present = [name in model for name in argument]
            assert tools.remove(argument) == (bool(present) and all(present))
            for name in argument:
                model.pop(name, None)
        elif operation == "remove_one":
            assert tools.remove(argument) == (argument in model)
            model.pop(argument, None)
        else:
            tools.clear()
            model.clear()
        assert tools.tools() == list(model.values())
        assert tools.count == len(model)
        assert [item["name"] for item in tools.definitions()] == list(model)


kinds = st.lists(st.sampled_from(["ok", "sync", "raise", "async_raise", "ghost"]), max_size=30)


@given(kinds)
def test_batches_answer_one_correlated_result_per_call_in_order(plan: list[str]) -> None:
    async def slow_ok(args: dict[str, Any]) -> int:
        await anyio.sleep(0.001 * (args["i"] % 3))
        return int(args["i"])

    def sync_ok(args: dict[str, Any]) -> int:
        return -int(args["i"])

    def fail(args: dict[str, Any]) -> None:
        raise ValueError(f"failed {args['i']}")

    async def async_fail(args: dict[str, Any]) -> None:
        await anyio.lowlevel.checkpoint()
        raise LookupError(f"lost {args['i']}")

    tools = ToolManager()
    tools.add(
        [
            Tool(name="ok", execute=slow_ok),
            Tool(name="sync", execute=sync_ok),
            Tool(name="raise", execute=fail),
            Tool(name="async_raise", execute=async_fail),
        ]
    )
    calls: list[ToolCall] = [
        {"id": f"call-{i % 4}", "name": kind, "arguments": {"i": i}} for i, kind in enumerate(plan)
    ]
    results = anyio.run(tools.execute, calls)
    assert len(results) == len(plan)
    expected_errors = {
        "raise": "failed {}",
        "async_raise": "lost {}",
        "ghost": "tool not found: ghost",
    }
    for i, (kind, result) in enumerate(zip(plan, results, strict=True)):
        assert (result["id"], result["name"]) == (f"call-{i % 4}", kind)
        if kind in ("ok", "sync"):
            assert result == {**result, "success": True, "value": i if kind == "ok" else -i}
        else:
            assert result["success"] is False
            assert result["error"] == expected_errors[kind].format(i)  # type: ignore[typeddict-item]
