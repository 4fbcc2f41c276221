"""`AbortController` and `AbortSignal`: once-only aborts, ordered listeners, waiting and scopes."""

from __future__ import annotations

import threading

import anyio
import pytest

from orkestrel.abort import AbortController, AbortError, AbortSignal, is_abort_signal


def test_abort_runs_listeners_once_in_order_and_keeps_the_first_reason() -> None:
    controller = AbortController()
    calls: list[str] = []
    controller.signal.add_listener(lambda: calls.append("first"))
    controller.signal.add_listener(lambda: calls.append("second"))
    controller.abort("stop")
    controller.abort("again")
    assert calls == ["first", "second"]
    assert controller.signal.aborted
    assert controller.signal.reason == "stop"


def test_listeners_can_be_removed_and_are_registered_once() -> None:
    controller = AbortController()
    calls: list[int] = []

    def listener() -> None:
        calls.append(1)

    controller.signal.add_listener(listener)
    controller.signal.add_listener(listener)
    controller.signal.remove_listener(lambda: None)
    controller.abort()
    assert calls == [1]
    other = AbortController()
    other.signal.add_listener(listener)
    other.signal.remove_listener(listener)
    other.abort()
    assert calls == [1]


def test_a_listener_added_after_the_abort_is_not_called() -> None:
    controller = AbortController()
    controller.abort()
    calls: list[int] = []
    controller.signal.add_listener(lambda: calls.append(1))
    assert calls == []


def test_a_raising_listener_does_not_stop_the_others() -> None:
    controller = AbortController()
    calls: list[str] = []

    def broken() -> None:
        raise RuntimeError("listener broke")

    controller.signal.add_listener(broken)
    controller.signal.add_listener(lambda: calls.append("after"))
    with pytest.raises(RuntimeError, match="listener broke"):
        controller.abort()
    assert calls == ["after"]
    assert controller.signal.aborted


def test_throw_if_aborted() -> None:
    controller = AbortController()
    controller.signal.throw_if_aborted()
    controller.abort("reason")
    with pytest.raises(AbortError, match="aborted: reason") as caught:
        controller.signal.throw_if_aborted()
    assert caught.value.reason == "reason"


def test_genuine_signals_are_told_apart() -> None:
    class Fake:
        aborted = True

    assert is_abort_signal(AbortController().signal)
    assert is_abort_signal(AbortSignal())
    assert not is_abort_signal(Fake())


@pytest.mark.anyio
async def test_wait_returns_once_aborted() -> None:
    controller = AbortController()
    order: list[str] = []

    async def waiter() -> None:
        await controller.signal.wait()
        order.append("woke")

    async with anyio.create_task_group() as group:
        group.start_soon(waiter)
        await anyio.sleep(0.01)
        order.append("abort")
        controller.abort()
    assert order == ["abort", "woke"]
    await controller.signal.wait()


@pytest.mark.anyio
async def test_scope_cancels_the_block_when_aborted() -> None:
    controller = AbortController()
    threading.Timer(0.01, controller.abort).start()
    with controller.signal.scope() as scope:
        await anyio.sleep(5)
    assert scope.cancelled_caught


@pytest.mark.anyio
async def test_scope_on_an_aborted_signal_cancels_at_once() -> None:
    controller = AbortController()
    controller.abort()
    ran: list[str] = []
    with controller.signal.scope():
        await anyio.sleep(1)
        ran.append("never")
    assert ran == []
