"""Hostile input for the ask and answer tools: each gets a typed refusal and nothing stays
parked by mistake."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any

import anyio
import pytest

from orkestrel.terminal import create_terminal_manager
from orkestrel.tool import ToolManager
from orkestrel.toolbox import ToolboxError, create_answer_tool, create_prompt_tool
from support.polling import until
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio


def tools() -> tuple[Any, ToolManager]:
    manager = create_terminal_manager()
    manager.add("reviewer", timer=FakeTimer())
    registry = ToolManager()
    registry.add(
        [
            create_prompt_tool(manager=manager, from_="agent"),
            create_answer_tool(manager=manager, to="reviewer"),
        ]
    )
    return manager, registry


def asking(registry: ToolManager, schema: dict[str, Any]) -> Callable[[], Coroutine[Any, Any, Any]]:
    """The `ask` call that parks `schema` for the reviewer, to start in the background."""
    call = {"id": "c", "name": "ask", "arguments": {"to": "reviewer", "schema": schema}}
    return functools.partial(registry.execute, call)


def nested(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"x": value}
    return value


HOSTILE_SCHEMAS = {
    "ten thousand fields": {
        "fields": [{"control": "text", "name": f"f{i}"} for i in range(10_000)]
    },
    "a one megabyte label": {
        "fields": [{"control": "text", "name": "a", "label": "x" * 1_048_576}]
    },
    "a one megabyte form label": {"label": "x" * 1_048_576, "fields": []},
    "a million choices": {
        "fields": [
            {
                "control": "select",
                "name": "s",
                "choices": [{"value": str(i), "label": "c"} for i in range(1_000_000)],
            }
        ]
    },
    "deep nesting": {"fields": [{"control": "text", "name": "a", "meta": nested(50_000)}]},
    "a look-around pattern": {
        "fields": [{"control": "text", "name": "a", "rule": {"pattern": "(?=x)x"}}]
    },
    "a proto name": {"fields": [{"control": "text", "name": "__proto__"}]},
    "a null default": {"fields": [{"control": "text", "name": "a", "default": None}]},
    "an infinite bound": {
        "fields": [{"control": "number", "name": "a", "rule": {"maximum": float("inf")}}]
    },
}


@pytest.mark.parametrize("case", list(HOSTILE_SCHEMAS), ids=list(HOSTILE_SCHEMAS))
async def test_a_hostile_schema_is_tool_and_parks_nothing(case: str) -> None:
    manager, registry = tools()
    result = await registry.execute(
        {"id": "c", "name": "ask", "arguments": {"to": "reviewer", "schema": HOSTILE_SCHEMAS[case]}}
    )
    assert result["success"] is False
    assert result["error"].startswith(("malformed form schema", "malformed ask call"))
    assert len(result["error"]) < 400
    assert manager.pending() == []


async def test_a_pattern_that_would_backtrack_is_asked_and_checked_in_linear_time() -> None:
    manager, registry = tools()
    schema = {"fields": [{"control": "editor", "name": "a", "rule": {"pattern": "(a+)+b"}}]}
    async with anyio.create_task_group() as group:
        group.start_soon(asking(registry, schema))
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        refused = await registry.execute(
            {
                "id": "a",
                "name": "answer",
                "arguments": {
                    "operation": "answer",
                    "id": record["id"],
                    "values": {"a": "a" * 60_000 + "!"},
                },
            }
        )
        assert refused["success"] is False
        assert "rejected" in refused["error"]
        assert manager.pending("reviewer") == [record]
        group.cancel_scope.cancel()
    assert manager.pending() == []


WRONG_VALUES = {
    "text": [1, True, ["x"], {"a": 1}],
    "number": ["1", True, [1]],
    "date": ["2024-13-01", 20240101],
    "time": ["25:00"],
    "datetime": ["2024-01-01 10:00"],
    "color": ["red"],
    "confirm": ["true", 1],
    "select": ["z", ["a"]],
    "checkbox": ["a", ["a", "a"], ["z"]],
    "file": ["a.txt", ["a", "b"]],
    "password": [0],
    "editor": [False],
}
FIELDS: list[Any] = [
    {
        "control": control,
        "name": control,
        **(
            {"choices": [{"value": "a", "label": "A"}]} if control in ("select", "checkbox") else {}
        ),
    }
    for control in WRONG_VALUES
]


async def test_a_value_of_the_wrong_type_for_every_control_is_rejected_and_the_form_stays() -> None:
    manager, registry = tools()
    answer = registry.tool("answer")
    assert answer is not None
    async with anyio.create_task_group() as group:
        group.start_soon(asking(registry, {"fields": FIELDS}))
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        for control, values in WRONG_VALUES.items():
            for value in values:
                with pytest.raises(ToolboxError) as caught:
                    await answer.execute(
                        {"operation": "answer", "id": record["id"], "values": {control: value}}
                    )
                assert caught.value.code in ("ANSWER", "TOOL"), (control, value)
                if caught.value.code == "ANSWER":
                    assert caught.value.context is not None
                    assert caught.value.context["reason"] == "rejected"
                    assert caught.value.context["errors"][0]["field"] == control
        assert manager.pending("reviewer") == [record]
        group.cancel_scope.cancel()


async def test_answers_to_expired_or_made_up_ids_are_unknown() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("reviewer", timer=timer)
    registry = ToolManager()
    registry.add(
        [
            create_prompt_tool(manager=manager, from_="agent"),
            create_answer_tool(manager=manager, to="reviewer"),
        ]
    )
    schema = {"fields": [{"control": "confirm", "name": "ok"}]}
    async with anyio.create_task_group() as group:
        group.start_soon(asking(registry, schema))
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        timer.fire()
    for id in [record["id"], "../../etc/passwd", "' OR 1=1 --", "x" * 100_000]:
        result = await registry.execute(
            {
                "id": "a",
                "name": "answer",
                "arguments": {"operation": "answer", "id": id, "values": {"ok": True}},
            }
        )
        assert result["success"] is False
        assert result["error"].startswith("unknown form")
    assert manager.pending() == []


async def test_a_lying_arguments_dict_cannot_change_the_operation() -> None:
    _, registry = tools()

    class Liar(dict[str, Any]):
        def get(self, key: str, default: Any = None) -> Any:
            return "pending" if key == "operation" else default

        def __getitem__(self, key: str) -> Any:
            return "pending" if key == "operation" else dict.__getitem__(self, key)

    answer = registry.tool("answer")
    assert answer is not None
    with pytest.raises(ToolboxError) as caught:
        await answer.execute(Liar(operation="answer", id="x", values={}))
    assert caught.value.code == "ANSWER"
    assert caught.value.context == {"id": "x", "reason": "unknown"}
