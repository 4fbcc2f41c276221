"""The manager: named terminals, routing, DEADLOCK, removal, pressure, and events from threads."""

from __future__ import annotations

import logging
import threading
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from orkestrel.form import FormError, create_form
from orkestrel.terminal import Emitter, TerminalError, TerminalManager, create_terminal_manager
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio

SCHEMA: Any = {"fields": [{"control": "text", "name": "answer"}]}


def form() -> Any:
    return create_form(SCHEMA)


def test_add_is_idempotent_and_keeps_order() -> None:
    manager = create_terminal_manager()
    first = manager.add("agent")
    assert manager.add("agent", timeout=5) is first
    manager.add("reviewer")
    assert manager.terminals() == ["agent", "reviewer"]
    assert manager.count == 2
    assert manager.terminal("agent") is first
    assert manager.terminal("ghost") is None
    assert isinstance(manager, TerminalManager)
    for bad in ["", 1, "x" * 129]:
        with pytest.raises(ValueError, match="terminal name"):
            manager.add(bad)  # type: ignore[arg-type]


async def test_ask_parks_on_the_target_and_resolves_with_the_answer() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("reviewer")
    seen: list[tuple[Any, ...]] = []
    for name in ("pending", "answer", "expire"):
        manager.emitter.on(name, lambda *args, name=name: seen.append((name, *args)))
    answer = manager.ask("agent", "reviewer", form())
    [record] = manager.pending("reviewer")
    assert (record["from"], record["to"]) == ("agent", "reviewer")
    assert manager.pending() == [record]
    assert manager.pending("ghost") == []
    assert manager.answer("ghost", record["id"], {}) == {
        "success": False,
        "error": {"reason": "target"},
    }
    assert manager.answer("reviewer", record["id"], {"answer": "yes"})["success"] is True
    assert await answer == {"answer": "yes"}
    assert seen == [("pending", record), ("answer", "reviewer", record["id"], {"answer": "yes"})]


def test_an_unknown_terminal_is_a_target_error_and_parks_nothing() -> None:
    manager = create_terminal_manager()
    manager.add("agent")
    manager.add("reviewer")
    with pytest.raises(TerminalError) as caught:
        manager.ask("agent", "ghost", form())
    assert caught.value.code == "TARGET"
    assert str(caught.value) == "unknown terminal 'ghost' (known: agent, reviewer)"
    assert caught.value.context == {"to": "ghost", "known": ["agent", "reviewer"]}
    assert manager.pending() == []


def test_a_reciprocal_ask_is_a_deadlock() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("agent")
    manager.add("reviewer")
    manager.ask("agent", "reviewer", form())
    with pytest.raises(TerminalError) as caught:
        manager.ask("reviewer", "agent", form())
    assert caught.value.code == "DEADLOCK"
    assert caught.value.context == {
        "from": "reviewer",
        "to": "agent",
        "path": ["reviewer", "agent", "reviewer"],
    }
    assert (
        str(caught.value) == "ask reviewer -> agent would deadlock: reviewer -> agent -> reviewer"
    )
    assert len(manager.pending()) == 1


def test_asking_yourself_and_longer_cycles_are_deadlocks() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    for name in "abcd":
        manager.add(name)
    with pytest.raises(TerminalError) as self_ask:
        manager.ask("a", "a", form())
    assert self_ask.value.context["path"] == ["a", "a"]  # type: ignore[index]
    manager.ask("a", "b", form())
    manager.ask("b", "c", form())
    manager.ask("d", "c", form())
    with pytest.raises(TerminalError) as caught:
        manager.ask("c", "a", form())
    assert caught.value.context["path"] == ["c", "a", "b", "c"]  # type: ignore[index]
    with pytest.raises(TerminalError) as back:
        manager.ask("c", "d", form())
    assert back.value.context["path"] == ["c", "d", "c"]  # type: ignore[index]
    manager.ask("a", "c", form())  # c waits on nobody, so a waiting on it too is no cycle
    assert len(manager.pending()) == 4


async def test_an_answer_or_expiry_clears_the_edge_but_a_rejection_does_not() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager(timer=timer)
    manager.add("agent")
    manager.add("reviewer", timer=timer)
    answer = manager.ask(
        "agent", "reviewer", create_form({"fields": [{"control": "number", "name": "n"}]})
    )
    [record] = manager.pending("reviewer")
    assert manager.answer("reviewer", record["id"], {"n": "x"})["success"] is False
    with pytest.raises(TerminalError):
        manager.ask("reviewer", "agent", form())
    timer.fire()
    with pytest.raises(FormError):
        await answer
    manager.ask("reviewer", "agent", form())


async def test_an_injected_timer_expires_one_ask_and_leaves_the_others() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("reviewer", timer=timer, timeout=10)
    answers = [manager.ask(f"agent{i}", "reviewer", form()) for i in range(10)]
    timer.fire(3)
    with pytest.raises(FormError):
        await answers[3]
    assert len(manager.pending("reviewer")) == 9
    assert not answers[4].done()  # type: ignore[attr-defined]


async def test_thirty_interleaved_asks_across_ten_terminals_all_resolve() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    names = [f"t{i}" for i in range(10)]
    for name in names:
        manager.add(name)
    results: dict[int, Any] = {}

    async def ask(index: int) -> None:
        lower, upper = names[index % 5], names[5 + index % 5]
        results[index] = await manager.ask(lower, upper, form())

    async with anyio.create_task_group() as group:
        for index in range(30):
            group.start_soon(ask, index)
        while len(manager.pending()) < 30:
            await anyio.lowlevel.checkpoint()
        for record in reversed(manager.pending()):
            assert manager.answer(record["to"], record["id"], {"answer": record["from"]})["success"]
    assert sorted(results) == list(range(30))
    assert all(results[index] == {"answer": names[index % 5]} for index in range(30))


async def test_remove_expires_the_parked_forms_through_the_listeners() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("a")
    manager.add("b")
    expired: list[tuple[str, str]] = []
    manager.emitter.on("expire", lambda to, id: expired.append((to, id)))
    answer = manager.ask("x", "a", form())
    [record] = manager.pending("a")
    assert manager.remove("a") == 1
    assert manager.remove("a") == 0
    assert expired == [("a", record["id"])]
    with pytest.raises(FormError):
        await answer
    assert manager.terminals() == ["b"]
    assert manager.remove(["b", "ghost"]) == 1


async def test_destroy_refuses_new_terminals_and_announces_itself() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("a")
    answer = manager.ask("x", "a", form())
    ended: list[str] = []
    manager.emitter.on("destroy", lambda: ended.append("destroy"))
    manager.destroy()
    manager.destroy()
    assert ended == ["destroy"]
    assert manager.destroyed
    assert manager.count == 0
    with pytest.raises(FormError):
        await answer
    with pytest.raises(TerminalError) as caught:
        manager.add("b")
    assert caught.value.code == "DESTROYED"


def test_the_emitter_isolates_a_raising_listener(caplog: pytest.LogCaptureFixture) -> None:
    emitter = Emitter()
    seen: list[int] = []

    def bad(value: int) -> None:
        raise RuntimeError("listener broke")

    emitter.on("x", bad)
    emitter.on("x", seen.append)
    with caplog.at_level(logging.ERROR, logger="orkestrel.terminal"):
        emitter.emit("x", 1)
    assert seen == [1]
    assert "listener broke" in caplog.text
    assert emitter.count("x") == 2
    emitter.off("x", bad)
    emitter.off("x", bad)
    assert emitter.count() == 1


async def test_asks_and_answers_from_worker_threads() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("reviewer")
    pending: list[str] = []
    manager.emitter.on("pending", lambda record: pending.append(threading.current_thread().name))
    answer = await anyio.to_thread.run_sync(lambda: manager.ask("agent", "reviewer", form()))
    [record] = manager.pending("reviewer")
    result = await anyio.to_thread.run_sync(
        lambda: manager.answer("reviewer", record["id"], {"answer": "t"})
    )
    assert result["success"] is True
    assert await answer == {"answer": "t"}
    assert len(pending) == 1
    assert pending[0] != threading.current_thread().name
