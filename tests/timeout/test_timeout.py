"""`Timeout`: expiry, clearing, re-arming, signal identity, parent linking and churn."""

from __future__ import annotations

import uuid

import anyio
import pytest

from orkestrel.abort import AbortController
from orkestrel.contract import ContractError
from orkestrel.timeout import MAX_TIMEOUT_MS, Timeout, TimeoutInterface, create_timeout

pytestmark = pytest.mark.anyio


async def settle(timeout: Timeout | TimeoutInterface, seconds: float = 2.0) -> None:
    with anyio.fail_after(seconds):
        await timeout.signal.wait()


async def test_construction_is_validated_before_anything_is_armed() -> None:
    with pytest.raises(ContractError) as caught:
        Timeout(ms=MAX_TIMEOUT_MS + 1)
    assert caught.value.code == "range"
    assert caught.value.context == {
        "path": ["options", "ms"],
        "limit": "integer in [0, 2147483647]",
        "received": "2147483648",
    }
    with pytest.raises(ContractError) as caught:
        Timeout(ms=0, id=5)  # type: ignore[arg-type]
    assert caught.value.code == "literal"
    await anyio.sleep(0.01)


async def test_ids_are_kept_or_generated() -> None:
    assert Timeout(ms=1, id="").id == ""
    assert Timeout(ms=1, id="deadline").id == "deadline"
    first, second = Timeout(ms=1).id, Timeout(ms=1).id
    assert first != second
    assert uuid.UUID(first).version == 4


async def test_fresh_state() -> None:
    timeout = create_timeout(ms=10)
    assert (timeout.ms, timeout.expired, timeout.signal.aborted) == (10, False, False)


async def test_expires_once_with_one_abort() -> None:
    fired: list[bool] = []
    timeout = Timeout(ms=5)
    timeout.signal.add_listener(lambda: fired.append(timeout.expired))
    timeout.start()
    await settle(timeout)
    await anyio.sleep(0.02)
    assert fired == [True]
    assert timeout.expired


async def test_zero_expires_on_a_later_turn_not_synchronously() -> None:
    timeout = Timeout(ms=0)
    timeout.start()
    assert not timeout.expired
    await settle(timeout)
    assert timeout.expired


async def test_clear_while_idle_or_armed_keeps_the_signal() -> None:
    timeout = Timeout(ms=20)
    signal = timeout.signal
    timeout.clear()
    timeout.start()
    timeout.clear()
    timeout.clear()
    await anyio.sleep(0.05)
    assert timeout.signal is signal
    assert not timeout.expired


async def test_churn_of_start_and_clear_never_expires() -> None:
    timeout = Timeout(ms=1)
    for _ in range(1000):
        timeout.start()
        timeout.clear()
    await anyio.sleep(0.03)
    assert not timeout.expired


async def test_repeated_start_gives_one_expiry() -> None:
    fired: list[int] = []
    timeout = Timeout(ms=5)
    timeout.signal.add_listener(lambda: fired.append(1))
    for _ in range(500):
        timeout.start()
    await settle(timeout)
    await anyio.sleep(0.03)
    assert fired == [1]


async def test_a_later_start_replaces_the_window() -> None:
    timeout = Timeout(ms=300)
    timeout.start()
    await anyio.sleep(0.2)
    timeout.start()
    await anyio.sleep(0.2)
    assert not timeout.expired
    await settle(timeout)
    assert timeout.expired


async def test_start_after_expiry_installs_a_fresh_signal_that_expires_again() -> None:
    timeout = Timeout(ms=1)
    timeout.start()
    await settle(timeout)
    first = timeout.signal
    timeout.start()
    assert timeout.signal is not first
    assert first.aborted
    assert not timeout.expired
    await settle(timeout)
    assert timeout.expired


async def test_clear_after_expiry_resets_expiry_with_a_fresh_signal() -> None:
    timeout = Timeout(ms=1)
    timeout.start()
    await settle(timeout)
    expired_signal = timeout.signal
    timeout.clear()
    assert timeout.signal is not expired_signal
    assert not timeout.expired
    assert expired_signal.aborted


async def test_parent_abort_while_armed_clears_without_expiring() -> None:
    parent = AbortController()
    timeout = Timeout(ms=30, signal=parent.signal)
    signal = timeout.signal
    timeout.start()
    parent.abort("shutdown")
    await anyio.sleep(0.06)
    assert not timeout.expired
    assert timeout.signal is signal
    assert signal.reason is None


async def test_parent_abort_after_expiry_keeps_the_expiry() -> None:
    parent = AbortController()
    timeout = Timeout(ms=1, signal=parent.signal)
    timeout.start()
    await settle(timeout)
    parent.abort()
    assert timeout.expired


async def test_restart_from_an_expiry_listener_keeps_the_new_parent_link() -> None:
    parent = AbortController()
    timeout = Timeout(ms=1, signal=parent.signal)
    restarted: list[bool] = []

    def restart() -> None:
        timeout.start()
        restarted.append(True)

    timeout.signal.add_listener(restart)
    timeout.start()
    await settle(timeout)
    assert restarted == [True]
    assert not timeout.expired
    parent.abort()
    await anyio.sleep(0.03)
    assert not timeout.expired


async def test_idle_parent_abort_makes_start_inert() -> None:
    parent = AbortController()
    timeout = Timeout(ms=1, signal=parent.signal)
    parent.abort()
    timeout.start()
    await anyio.sleep(0.03)
    assert not timeout.expired


async def test_parented_churn_then_abort_leaves_start_inert() -> None:
    parent = AbortController()
    timeout = Timeout(ms=1, signal=parent.signal)
    for _ in range(200):
        timeout.start()
        timeout.clear()
    timeout.start()
    parent.abort()
    timeout.start()
    await anyio.sleep(0.03)
    assert not timeout.expired


async def test_signal_scope_bounds_work() -> None:
    timeout = Timeout(ms=10)
    timeout.start()
    reached_end = False
    with timeout.signal.scope():
        await anyio.sleep(5)
        reached_end = True
    assert not reached_end
    assert timeout.expired


def test_interface_shape() -> None:
    timeout = create_timeout(ms=1, id="x")
    for member in ("id", "ms", "signal", "expired", "start", "clear"):
        assert hasattr(timeout, member)
