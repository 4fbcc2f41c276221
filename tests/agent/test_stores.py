"""The conversation table store in memory, in a SQLite file and in PostgreSQL: round trips,
text a JSON cell cannot hold, malformed rows read as absent, and a second process reading the
file."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.agent import (
    CONVERSATIONS_COLUMNS,
    CONVERSATIONS_TABLE,
    Conversation,
    ConversationManager,
    ConversationSnapshot,
    DatabaseConversationStore,
    create_database_conversation_store,
)
from orkestrel.database import DatabaseError, DriverInterface, create_database, create_sqlite_driver

pytestmark = pytest.mark.anyio

MakeDriver = Callable[[], DriverInterface]


def chat(id: str = "chat", text: str = "Héllo 😀") -> ConversationSnapshot:
    conversation = Conversation(id)
    conversation.add({"role": "user", "content": text})
    conversation.add(
        {
            "role": "assistant",
            "content": "",
            "calls": [{"id": "c1", "name": "weather", "arguments": {"city": text, "n": [1, 2.5]}}],
        }
    )
    conversation.add({"role": "tool", "content": "sunny", "call": "c1", "error": False})
    return conversation.snapshot()


async def test_snapshots_round_trip_replace_and_delete(make_driver: MakeDriver) -> None:
    store = create_database_conversation_store(make_driver())
    try:
        assert await store.get("chat") is None
        await store.set(chat())
        assert await store.get("chat") == chat() | {
            "messages": (await store.get("chat"))["messages"]
        }
        first = await store.get("chat")
        assert first is not None
        assert first["messages"][0]["content"] == "Héllo 😀"
        replaced = chat(text="second")
        await store.set(replaced)
        assert await store.get("chat") == replaced
        await store.delete("chat")
        await store.delete("chat")
        assert await store.get("chat") is None
    finally:
        await store.close()


async def test_text_a_json_cell_cannot_hold_round_trips(make_driver: MakeDriver) -> None:
    store = create_database_conversation_store(make_driver())
    try:
        for text in ("nul \x00 inside", "lone \ud800 surrogate", "literal \\u0000 text"):
            snapshot = chat(text=text)
            await store.set(snapshot)
            assert await store.get("chat") == snapshot, repr(text)
        with pytest.raises(DatabaseError):
            await store.set(chat(id="bad\x00id"))
    finally:
        await store.close()


async def test_a_saved_conversation_survives_a_new_driver(make_driver: MakeDriver) -> None:
    first = create_database_conversation_store(make_driver())
    manager = ConversationManager(first)
    conversation = manager.add("kept")
    conversation.add({"role": "user", "content": "remember me"})
    assert await manager.save("kept") is True
    await first.close()
    second = create_database_conversation_store(make_driver())
    try:
        opened = await ConversationManager(second).open("kept")
        if (
            make_driver is not None
            and getattr(make_driver, "__name__", "") == "create_memory_driver"
        ):
            assert opened is None, "a private in-memory database is not shared"
        else:
            assert opened is not None
            assert opened.snapshot() == conversation.snapshot()
    finally:
        await second.close()


async def test_a_row_that_is_not_a_snapshot_reads_as_absent(make_driver: MakeDriver) -> None:
    database = create_database(
        tables={CONVERSATIONS_TABLE: CONVERSATIONS_COLUMNS}, driver=make_driver()
    )
    table = database.table(CONVERSATIONS_TABLE)
    store = DatabaseConversationStore(table, database)
    blobs: dict[str, Any] = {
        "text": "not a snapshot",
        "list": [1, 2],
        "missing": {"id": "missing"},
        "other id": {"id": "elsewhere", "sections": [], "messages": []},
        "bad message": {"id": "bad message", "sections": [], "messages": [{"role": "x"}]},
        "bad base64": {"encoded": "!!!"},
        "bad json": {"encoded": "bm90IGpzb24="},
    }
    try:
        for id, blob in blobs.items():
            await table.set({"id": id, "snapshot": blob})
            assert await store.get(id) is None, id
        assert repr(store) == "DatabaseConversationStore(table='conversations')"
        with pytest.raises(ValueError, match="well-formed"):
            await store.set({"id": "x"})  # type: ignore[typeddict-item]
    finally:
        await store.close()


READER = textwrap.dedent(
    """
    import sys, anyio
    from orkestrel.agent import ConversationManager, create_database_conversation_store
    from orkestrel.database import create_sqlite_driver

    async def main(path):
        store = create_database_conversation_store(create_sqlite_driver(path))
        conversation = await ConversationManager(store).open("chat")
        print(conversation.messages()[0]["content"], end="")
        await store.close()

    anyio.run(main, sys.argv[1])
    """
)


async def test_another_process_reads_what_was_saved_to_a_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    store = create_database_conversation_store(create_sqlite_driver(path))
    await store.set(chat(text="from another process"))
    await store.close()
    done = await anyio.run_process([sys.executable, "-c", READER, str(path)])
    assert done.stdout.decode() == "from another process"
