"""The 1.x line's cancel gate: a client's `notifications/cancelled` never reaches the SDK, and
the call it names is cancelled by the gate, before its handler starts or while it runs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from orkestrel.mcp.cancel_gate import MAX_TRACKED, CancelGate, CancelledCall

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def message(method: str, *, id: Any = None, params: Any = None) -> Any:
    root = SimpleNamespace(method=method, id=id, params=params)
    return SimpleNamespace(message=SimpleNamespace(root=root))


def cancel(request: Any) -> Any:
    return message("notifications/cancelled", params={"requestId": request})


async def test_a_cancel_before_the_handler_starts_answers_the_call_without_running_it() -> None:
    gate = CancelGate()
    assert gate.admit(message("tools/call", id=7))
    assert not gate.admit(cancel(7))
    ran = False
    with pytest.raises(CancelledCall, match="Request cancelled"), gate.call(7):
        ran = True
    assert not ran


async def test_a_cancel_during_the_call_cancels_its_scope() -> None:
    gate = CancelGate()
    gate.admit(message("tools/call", id="a"))
    reached = anyio.Event()
    outcome: list[str] = []

    async def handler() -> None:
        try:
            with gate.call("a"):
                reached.set()
                await anyio.sleep(30)
        except CancelledCall as cancelled:
            outcome.append(str(cancelled))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(handler)
            await reached.wait()
            assert not gate.admit(cancel("a"))
    assert outcome == ["Request cancelled"]


async def test_other_messages_pass_and_an_unknown_cancel_is_dropped() -> None:
    gate = CancelGate()
    assert gate.admit(message("tools/list", id=1))
    assert gate.admit(message("notifications/initialized"))
    assert gate.admit(ValueError("a line the SDK could not parse"))
    assert not gate.admit(cancel(99))
    with gate.call(99):
        pass


async def test_the_gate_remembers_a_bounded_number_of_calls() -> None:
    gate = CancelGate()
    for request in range(MAX_TRACKED + 10):
        gate.admit(message("tools/call", id=request))
    gate.admit(cancel(0))
    with gate.call(0):
        pass
    gate.admit(cancel(MAX_TRACKED + 9))
    with pytest.raises(CancelledCall), gate.call(MAX_TRACKED + 9):
        pass
