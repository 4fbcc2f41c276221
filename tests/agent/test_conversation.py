"""Conversations, their snapshots, the conversation manager and the agent context."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.agent import (
    AgentContext,
    AgentError,
    Conversation,
    ConversationManager,
    MessageInput,
    create_conversation,
    create_conversation_manager,
    create_memory_conversation_store,
    is_conversation_snapshot,
    parse_conversation_snapshot,
)
from orkestrel.tool import ToolManager

pytestmark = pytest.mark.anyio


def test_messages_get_ids_and_stay_as_they_were_stored() -> None:
    conversation = create_conversation("c1")
    arguments = {"city": "Paris"}
    stored = conversation.add(
        {
            "role": "assistant",
            "content": "",
            "calls": [{"id": "x", "name": "w", "arguments": arguments}],
        }
    )
    assert len(stored["id"]) == 32
    arguments["city"] = "Rome"
    stored["calls"][0]["arguments"]["city"] = "Oslo"
    again = conversation.message(stored["id"])
    assert again is not None
    assert again["calls"][0]["arguments"] == {"city": "Paris"}
    again["content"] = "changed"
    assert conversation.messages()[0]["content"] == ""
    batch = conversation.add(
        [{"role": "tool", "content": "3", "call": "x"}, {"role": "user", "content": "ok"}]
    )
    assert conversation.count == 3
    assert [m["role"] for m in batch] == ["tool", "user"]
    assert conversation.view() == conversation.messages()
    assert conversation.remove([batch[0]["id"], "ghost"]) is True
    assert conversation.remove("ghost") is False
    conversation.clear()
    assert conversation.count == 0
    assert repr(conversation) == "Conversation(id='c1', count=0)"


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"role": "robot", "content": "x"}, "unknown message role"),
        ({"role": "user", "content": 3}, "string content"),
        ({"role": "user", "content": "x", "calls": []}, "only assistant messages carry 'calls'"),
        ({"role": "assistant", "content": "x", "call": "c"}, "only tool messages carry 'call'"),
        ({"role": "assistant", "content": "", "calls": [{"id": "", "name": "n"}]}, "id"),
        (
            {
                "role": "assistant",
                "content": "",
                "calls": [{"id": "a", "name": "n", "arguments": {"x": float("nan")}}],
            },
            "not a JSON object",
        ),
        ({"role": "tool", "content": "x", "call": 5}, "'call' must be"),
        ({"role": "tool", "content": "x", "call": "c", "error": "yes"}, "'error' must be"),
        ({"role": "user", "content": "x", "images": [1]}, "'images'"),
        ({"role": "user", "content": "x", "mood": "happy"}, "no field"),
        ("not a mapping", "must be a mapping"),
    ],
)
def test_malformed_messages_are_refused_and_nothing_is_stored(message: Any, reason: str) -> None:
    conversation = Conversation()
    with pytest.raises(AgentError, match=reason) as error:
        conversation.add([{"role": "user", "content": "fine"}, message])
    assert error.value.code == "MESSAGE"
    assert conversation.count == 0


def test_a_snapshot_is_exact_json_and_restores() -> None:
    conversation = Conversation("chat")
    first = conversation.add(
        {"role": "user", "content": "hi", "images": ["data:image/png;base64,AA=="]}
    )
    second = conversation.add({"role": "assistant", "content": "hello"})
    snapshot = conversation.snapshot()
    assert snapshot == {
        "id": "chat",
        "sections": [],
        "messages": [
            {
                "id": first["id"],
                "role": "user",
                "content": "hi",
                "images": ["data:image/png;base64,AA=="],
            },
            {"id": second["id"], "role": "assistant", "content": "hello"},
        ],
    }
    assert is_conversation_snapshot(snapshot)
    manager = ConversationManager()
    restored = manager.add(snapshot=snapshot)
    assert restored.snapshot() == snapshot
    assert manager.active is restored


@pytest.mark.parametrize(
    "value",
    [
        None,
        [],
        {"id": "x", "sections": [], "messages": [], "summary": "extra"},
        {"id": 1, "sections": [], "messages": []},
        {"id": "x", "sections": [{"id": "s"}], "messages": []},
        {"id": "x", "sections": [], "messages": [{"role": "user", "content": "no id"}]},
        {
            "id": "x",
            "sections": [],
            "messages": [
                {"id": "m", "role": "user", "content": "a"},
                {"id": "m", "role": "user", "content": "b"},
            ],
        },
        {"id": "x", "sections": [], "messages": "no"},
    ],
)
def test_the_snapshot_guard_is_total(value: Any) -> None:
    assert is_conversation_snapshot(value) is False
    assert parse_conversation_snapshot(value) is None


def test_a_lying_mapping_is_refused_by_the_guard() -> None:
    class Liar(dict[str, Any]):
        def __iter__(self) -> Any:
            raise RuntimeError("no")

    assert is_conversation_snapshot(Liar(id="x", sections=[], messages=[])) is False


async def test_the_manager_selects_opens_and_saves() -> None:
    store = create_memory_conversation_store()
    manager = create_conversation_manager(store)
    first = manager.add("one")
    second = manager.add("two")
    assert manager.active is first
    assert manager.count == 2
    assert manager.switch("two") is second
    assert manager.switch("ghost") is None
    first.add({"role": "user", "content": "saved"})
    assert await manager.save("one") is True
    assert await manager.save("ghost") is False
    assert manager.remove("one") is True
    assert manager.active is second
    opened = await manager.open("one")
    assert opened is not None
    assert opened.messages()[0]["content"] == "saved"
    assert manager.active is opened
    assert await manager.open("missing") is None
    assert await ConversationManager().save("x") is False
    assert await ConversationManager().open("x") is None
    manager.clear()
    assert manager.count == 0
    assert manager.active is None
    with pytest.raises(ValueError, match="well-formed"):
        manager.add(snapshot={"id": "x"})  # type: ignore[typeddict-item]


def test_the_context_always_has_an_active_conversation_and_builds_the_prompt() -> None:
    context = AgentContext(system="Be kind.")
    assert context.conversations.count == 1
    assert isinstance(context.tools, ToolManager)
    context.messages.add({"role": "user", "content": "hi"})
    prompt = context.build()
    assert [(m["role"], m["content"]) for m in prompt] == [("system", "Be kind."), ("user", "hi")]
    context.conversations.clear()
    assert context.messages.count == 0
    assert context.conversations.count == 1
    assert AgentContext().build() == []
    with pytest.raises(TypeError, match="system"):
        AgentContext(system=5)  # type: ignore[arg-type]


async def test_the_memory_store_copies_in_and_out() -> None:
    store = create_memory_conversation_store()
    conversation = Conversation("c")
    conversation.add({"role": "user", "content": "original"})
    snapshot = conversation.snapshot()
    await store.set(snapshot)
    snapshot["messages"][0]["content"] = "mutated"
    read = await store.get("c")
    assert read is not None
    assert read["messages"][0]["content"] == "original"
    read["messages"].clear()
    again = await store.get("c")
    assert again is not None
    assert len(again["messages"]) == 1
    await store.delete("c")
    await store.delete("c")
    assert await store.get("c") is None
    bad: Any = {"id": "c", "messages": []}
    with pytest.raises(ValueError, match="well-formed"):
        await store.set(bad)


def seed() -> list[MessageInput]:
    return [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
