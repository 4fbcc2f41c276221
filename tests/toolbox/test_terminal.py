"""The prompt and answer tools over a real terminal manager, as the seed's patterns pin them."""

from __future__ import annotations

import functools
from typing import Any

import anyio
import pytest
from anyio.lowlevel import checkpoint

from orkestrel.contract import create_contract
from orkestrel.form import create_form
from orkestrel.terminal import TerminalError, TerminalManager, create_terminal_manager
from orkestrel.tool import ToolManager
from orkestrel.toolbox import (
    ANSWER_TOOL_DESCRIPTION,
    ANSWER_TOOL_NAME,
    ANSWER_TOOL_SUMMARY,
    PROMPT_TOOL_DESCRIPTION,
    PROMPT_TOOL_NAME,
    PROMPT_TOOL_SUMMARY,
    ToolboxError,
    answer_tool_shape,
    create_answer_tool,
    create_prompt_tool,
    infer_terminal_code,
    prompt_tool_shape,
)
from support.polling import until
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio

SCHEMA: Any = {
    "label": "Release review",
    "fields": [
        {"control": "confirm", "name": "approved", "label": "Approve the release?"},
        {"control": "editor", "name": "notes", "label": "Review notes"},
    ],
}


def setup(**options: Any) -> tuple[TerminalManager, ToolManager]:
    manager = create_terminal_manager(**options)
    manager.add("agent")
    manager.add("reviewer")
    tools = ToolManager()
    tools.add(
        [
            create_prompt_tool(manager=manager, from_="agent"),
            create_answer_tool(manager=manager, to="reviewer"),
        ]
    )
    return manager, tools


async def call(tools: ToolManager, name: str, **arguments: Any) -> dict[str, Any]:
    return dict(await tools.execute({"id": "c", "name": name, "arguments": arguments}))


async def test_a_multi_field_form_parks_once_and_settles_into_one_values_record() -> None:
    manager, tools = setup()
    asked: dict[str, Any] = {}

    async def ask() -> None:
        asked.update(await call(tools, "ask", to="reviewer", schema=SCHEMA))

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        while not manager.pending("reviewer"):
            await checkpoint()
        listed = await call(tools, "answer", operation="pending")
        [form] = manager.pending("reviewer")
        assert listed["value"] == [{"id": form["id"], "from": "agent", "schema": SCHEMA}]
        answered = await call(
            tools,
            "answer",
            operation="answer",
            id=form["id"],
            values={"approved": True, "notes": "Ship it."},
        )
        assert answered["value"] == {"answered": form["id"]}
    assert asked["value"] == {"approved": True, "notes": "Ship it."}
    assert manager.pending() == []


@pytest.mark.parametrize(
    "schema",
    [
        {"fields": [{"control": "slider", "name": "x"}]},
        {"fields": [{"control": "text", "name": "x"}, {"control": "text", "name": "x"}]},
        {"fields": [{"control": "select", "name": "x"}]},
        {"fields": [{"control": "select", "name": "x", "choices": "a,b"}]},
        {"fields": [{"control": "checkbox", "name": "x"}]},
        {"fields": [{"control": "select", "name": "x", "choices": [{"value": "a"}]}]},
        {"fields": [{"control": "text", "name": "x", "label": {"en": "x"}}]},
        {"label": "no fields"},
    ],
)
async def test_a_schema_parse_form_refuses_is_tool_and_parks_nothing(schema: Any) -> None:
    manager, tools = setup()
    tool = tools.tool("ask")
    assert tool is not None
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"to": "reviewer", "schema": schema})
    assert caught.value.code == "TOOL"
    assert str(caught.value).startswith("malformed form schema: ")
    assert caught.value.context is not None
    assert caught.value.context["schema"] == schema
    assert caught.value.context["faults"]
    assert manager.pending() == []


@pytest.mark.parametrize("control", ["select", "checkbox"])
async def test_a_choice_field_with_no_enabled_choice_is_tool(control: str) -> None:
    manager, tools = setup()
    schema = {
        "fields": [
            {
                "control": control,
                "name": "plan",
                "choices": [{"value": "a", "label": "A", "disabled": True}],
            }
        ]
    }
    with pytest.raises(ToolboxError) as caught:
        await tools.tool("ask").execute({"to": "reviewer", "schema": schema})  # type: ignore[union-attr]
    assert (caught.value.code, str(caught.value)) == (
        "TOOL",
        f"{control} field 'plan' has no enabled choices",
    )
    assert caught.value.context == {"control": control, "field": "plan"}
    assert manager.pending() == []


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"to": "reviewer"},
        {"schema": SCHEMA},
        {"to": "", "schema": SCHEMA},
        {"to": None, "schema": SCHEMA},
        {"to": "reviewer", "schema": []},
        {"to": "reviewer", "schema": "{}"},
        {"to": "reviewer", "schema": {"f": lambda: 1}},
    ],
)
async def test_malformed_ask_calls_are_tool(arguments: Any) -> None:
    manager, tools = setup()
    with pytest.raises(ToolboxError) as caught:
        await tools.tool("ask").execute(arguments)  # type: ignore[union-attr]
    assert caught.value.code == "TOOL"
    assert str(caught.value).startswith("malformed ask call: ")
    assert manager.pending() == []


async def test_the_fixed_from_survives_a_spoofing_attempt() -> None:
    manager, tools = setup()
    spoofed = await call(tools, "ask", to="reviewer", schema=SCHEMA, **{"from": "reviewer"})
    assert spoofed["error"] == 'malformed ask call: unknown argument "from" (known: to, schema)'
    assert manager.pending("reviewer") == []
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(call, tools, "ask", to="reviewer", schema=SCHEMA))
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        assert record["from"] == "agent"
        listed = await call(tools, "answer", operation="pending")
        assert listed["value"][0]["from"] == "agent"
        manager.terminal("reviewer").stop()  # type: ignore[union-attr]


async def test_an_unknown_terminal_is_tool_with_the_known_ones() -> None:
    _, tools = setup()
    with pytest.raises(ToolboxError) as caught:
        await tools.tool("ask").execute({"to": "ghost", "schema": SCHEMA})  # type: ignore[union-attr]
    assert (caught.value.code, str(caught.value)) == ("TOOL", "unknown terminal 'ghost'")
    assert caught.value.context == {"to": "ghost", "known": ["agent", "reviewer"]}


async def test_a_reviewer_asking_the_agent_back_is_a_deadlock() -> None:
    manager = create_terminal_manager()
    manager.add("agent")
    manager.add("reviewer")
    forward = create_prompt_tool(manager=manager, from_="agent")
    back = create_prompt_tool(manager=manager, from_="reviewer")
    async with anyio.create_task_group() as group:
        group.start_soon(forward.execute, {"to": "reviewer", "schema": SCHEMA})
        await until(lambda: manager.pending("reviewer"))
        with pytest.raises(ToolboxError) as caught:
            await back.execute({"to": "agent", "schema": SCHEMA})
        assert caught.value.code == "DEADLOCK"
        assert str(caught.value) == "asking 'agent' would create a form cycle"
        assert caught.value.context is not None
        assert caught.value.context["path"] == ["reviewer", "agent", "reviewer"]
        assert len(manager.pending()) == 1
        group.cancel_scope.cancel()


async def test_an_injected_timer_expires_the_ask() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("agent")
    manager.add("reviewer", timer=timer, timeout=10)
    tool = create_prompt_tool(manager=manager, from_="agent")
    failures: list[ToolboxError] = []

    async def ask() -> None:
        try:
            await tool.execute({"to": "reviewer", "schema": SCHEMA})
        except ToolboxError as error:
            failures.append(error)

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        await until(lambda: timer.live)
        assert timer.live[0].ms == 10
        timer.fire()
    [error] = failures
    assert (error.code, str(error), error.context) == (
        "EXPIRE",
        "form to 'reviewer' expired before it was answered",
        {"to": "reviewer"},
    )


async def test_a_destroyed_terminal_is_expire_and_a_full_one_is_tool() -> None:
    manager = create_terminal_manager()
    manager.add("reviewer", cap=0)
    manager.add("gone").destroy()
    tool = create_prompt_tool(manager=manager, from_="agent")
    with pytest.raises(ToolboxError) as full:
        await tool.execute({"to": "reviewer", "schema": SCHEMA})
    assert (full.value.code, full.value.context) == ("TOOL", {"to": "reviewer", "code": "LIMIT"})
    assert str(full.value).startswith("asking 'reviewer' failed: ")
    with pytest.raises(ToolboxError) as gone:
        await tool.execute({"to": "gone", "schema": SCHEMA})
    assert gone.value.code == "EXPIRE"


async def test_a_declined_form_is_answer() -> None:
    manager, tools = setup()
    failures: list[Any] = []

    async def ask() -> None:
        try:
            await tools.tool("ask").execute({"to": "reviewer", "schema": SCHEMA})  # type: ignore[union-attr]
        except ToolboxError as error:
            failures.append(error)

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        manager.terminal("reviewer").decline(record["id"])  # type: ignore[union-attr]
    assert [(e.code, str(e), e.context) for e in failures] == [
        ("ANSWER", "'reviewer' declined the form", {"to": "reviewer", "reason": "declined"})
    ]


async def test_answering_wrongly_is_answer_with_the_field_errors_and_the_form_stays() -> None:
    manager, tools = setup()
    answer = tools.tool("answer")
    assert answer is not None
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(call, tools, "ask", to="reviewer", schema=SCHEMA))
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        with pytest.raises(ToolboxError) as rejected:
            await answer.execute(
                {"operation": "answer", "id": record["id"], "values": {"approved": "yes"}}
            )
        assert rejected.value.code == "ANSWER"
        assert rejected.value.context == {
            "id": record["id"],
            "reason": "rejected",
            "errors": [{"field": "approved", "message": "The answer expects true or false"}],
        }
        assert "approved: The answer expects true or false" in str(rejected.value)
        assert manager.pending("reviewer") == [record]
        with pytest.raises(ToolboxError) as unknown:
            await answer.execute({"operation": "answer", "id": "nope", "values": {}})
        assert (unknown.value.code, str(unknown.value)) == ("ANSWER", "unknown form 'nope'")
        assert unknown.value.context == {"id": "nope", "reason": "unknown"}
        with pytest.raises(ToolboxError) as values:
            await answer.execute(
                {"operation": "answer", "id": record["id"], "values": {"approved": None}}
            )
        assert (values.value.code, str(values.value)) == ("TOOL", "malformed form values")
        assert manager.pending("reviewer") == [record]
        manager.terminal("reviewer").stop()  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"operation": "nope"},
        {"operation": "answer"},
        {"operation": "answer", "id": ""},
        {"operation": "answer", "id": "x"},
        {"operation": "answer", "id": None, "values": {}},
        {"operation": "answer", "id": "x", "values": []},
        {"operation": "answer", "id": "x", "values": {"a": lambda: 1}},
    ],
)
async def test_malformed_answer_calls_are_tool(arguments: Any) -> None:
    _, tools = setup()
    with pytest.raises(ToolboxError) as caught:
        await tools.tool("answer").execute(arguments)  # type: ignore[union-attr]
    assert caught.value.code == "TOOL"
    assert str(caught.value).startswith("malformed answer call")


async def test_a_listing_of_a_form_without_from_omits_it() -> None:
    manager, tools = setup()
    manager.terminal("reviewer").park(create_form(SCHEMA))  # type: ignore[union-attr]
    listed = await call(tools, "answer", operation="pending")
    assert list(listed["value"][0]) == ["id", "schema"]


@pytest.mark.parametrize("how", ["cancel", "timeout"])
async def test_a_cancelled_or_timed_out_asker_withdraws_its_form(how: str) -> None:
    manager, tools = setup()
    expired: list[tuple[str, str]] = []
    manager.emitter.on("expire", lambda to, id: expired.append((to, id)))
    if how == "timeout":
        result = await tools.execute(
            {"id": "t", "name": "ask", "arguments": {"to": "reviewer", "schema": SCHEMA}},
            timeout=0.05,
        )
        assert result["success"] is False
    else:
        async with anyio.create_task_group() as group:
            group.start_soon(functools.partial(call, tools, "ask", to="reviewer", schema=SCHEMA))
            await until(lambda: manager.pending("reviewer"))
            group.cancel_scope.cancel()
    assert manager.pending() == []
    assert [to for to, _ in expired] == ["reviewer"]


async def test_select_and_checkbox_asked_and_answered_end_to_end() -> None:
    manager, tools = setup()
    schema = {
        "fields": [
            {
                "control": "select",
                "name": "plan",
                "choices": [{"value": "free", "label": "Free"}, {"value": "pro", "label": "Pro"}],
            },
            {
                "control": "checkbox",
                "name": "extras",
                "choices": [{"value": "a", "label": "A"}, {"value": "b", "label": "B"}],
            },
        ]
    }
    asked: dict[str, Any] = {}

    async def ask() -> None:
        asked.update(await call(tools, "ask", to="reviewer", schema=schema))

    async with anyio.create_task_group() as group:
        group.start_soon(ask)
        await until(lambda: manager.pending("reviewer"))
        [record] = manager.pending("reviewer")
        bad = await call(
            tools,
            "answer",
            operation="answer",
            id=record["id"],
            values={"plan": "gold", "extras": ["a"]},
        )
        assert bad["success"] is False
        good = await call(
            tools,
            "answer",
            operation="answer",
            id=record["id"],
            values={"plan": "pro", "extras": ["b", "a"]},
        )
        assert good["success"] is True
    assert asked["value"] == {"plan": "pro", "extras": ["b", "a"]}


def test_infer_terminal_code() -> None:
    assert infer_terminal_code(TerminalError("DEADLOCK", "cycle")) == "DEADLOCK"
    assert infer_terminal_code(TerminalError("EXPIRE", "timed out")) == "EXPIRE"
    assert infer_terminal_code(TerminalError("CANCEL", "declined")) == "ANSWER"
    for code in ("TARGET", "LIMIT", "DRIVER", "DESTROYED"):
        assert infer_terminal_code(TerminalError(code, "x")) == "TOOL"  # type: ignore[arg-type]
    assert infer_terminal_code(ValueError("not a terminal error")) is None
    assert infer_terminal_code(None) is None


def test_the_shapes() -> None:
    prompt = create_contract(prompt_tool_shape)
    assert prompt.parse({"to": "r", "schema": {"fields": []}, "from": "spoof"}) == {
        "to": "r",
        "schema": {"fields": []},
    }
    assert not prompt.is_valid({"to": "", "schema": {}})
    answer = create_contract(answer_tool_shape)
    assert answer.schema["anyOf"][1]["required"] == ["operation", "id", "values"]
    assert answer.is_valid({"operation": "pending"})
    assert answer.is_valid({"operation": "answer", "id": "x", "values": {"a": [1, {"b": None}]}})
    assert not answer.is_valid({"operation": "answer", "id": "", "values": {}})
    assert not answer.is_valid({"operation": "answer", "id": "x", "values": {"f": print}})
    assert not answer.is_valid({"operation": "answer", "id": "x"})


def test_names_texts_and_the_flat_advertised_schema() -> None:
    manager = create_terminal_manager()
    ask = create_prompt_tool(manager=manager, from_="agent")
    answer = create_answer_tool(manager=manager, to="reviewer")
    assert (ask.name, ask.summary, ask.description) == (
        PROMPT_TOOL_NAME,
        PROMPT_TOOL_SUMMARY,
        PROMPT_TOOL_DESCRIPTION,
    )
    assert (answer.name, answer.summary, answer.description) == (
        ANSWER_TOOL_NAME,
        ANSWER_TOOL_SUMMARY,
        ANSWER_TOOL_DESCRIPTION,
    )
    assert (PROMPT_TOOL_NAME, ANSWER_TOOL_NAME) == ("ask", "answer")
    assert answer.parameters is not None
    assert answer.parameters["type"] == "object"
    assert "anyOf" not in answer.parameters
    assert answer.parameters["properties"]["operation"]["enum"] == ["pending", "answer"]
    assert ask.parameters == {
        "type": "object",
        "properties": {
            "to": {
                "type": "string",
                "minLength": 1,
                "description": "Who answers.",
            },
            "schema": ask.parameters["properties"]["schema"],  # type: ignore[index]
        },
        "required": ["to", "schema"],
        "additionalProperties": False,
    }
    renamed = create_prompt_tool(
        manager=manager, from_="agent", name="ask_person", description="Ask."
    )
    assert renamed.summary is not None
    assert "describe('ask_person')" in renamed.summary
    assert renamed.description == "Ask."
    other = create_answer_tool(manager=manager, to="r", name="respond")
    assert "describe('respond')" in (other.summary or "")
    assert ask.annotations == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
        "title": "Ask a person",
    }
    assert answer.annotations is not None
    assert answer.annotations["openWorldHint"] is False


async def test_answering_on_an_unmounted_terminal_is_answer_with_reason_target() -> None:
    manager = create_terminal_manager()
    answer = create_answer_tool(manager=manager, to="nobody")
    with pytest.raises(ToolboxError) as caught:
        await answer.execute({"operation": "answer", "id": "f1", "values": {}})
    assert caught.value.code == "ANSWER"
    assert caught.value.context == {"id": "f1", "reason": "target"}
    assert str(caught.value) == "failed to answer form 'f1': target"


async def test_malformed_values_with_an_unknown_id_are_tool() -> None:
    _, tools = setup()
    with pytest.raises(ToolboxError) as caught:
        await tools.tool("answer").execute(  # type: ignore[union-attr]
            {"operation": "answer", "id": "nope", "values": {"approved": None}}
        )
    assert (caught.value.code, str(caught.value)) == ("TOOL", "malformed form values")
