"""The database layer's worker threads are taken in turn by callers: one caller's flood of
queued work cannot hold back another caller's single unit, no caller runs more than its share,
and a caller that gives up waiting leaves nothing behind."""

from __future__ import annotations

import contextvars
from collections.abc import Hashable

import anyio
import pytest

from orkestrel.database import (
    FairLimiter,
    create_database,
    create_memory_driver,
    database_fair_limiter,
)

pytestmark = pytest.mark.anyio

WHO: contextvars.ContextVar[str | None] = contextvars.ContextVar("who", default=None)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_a_flooding_caller_takes_turns_with_a_single_call() -> None:
    fair = FairLimiter(anyio.CapacityLimiter(2))
    order: list[str] = []
    gate = anyio.Event()

    async def unit(key: Hashable, name: str) -> None:
        borrower = object()
        await fair.acquire(key, borrower)
        order.append(name)
        await gate.wait()
        fair.release(key, borrower)

    async with anyio.create_task_group() as group:
        for index in range(100):
            group.start_soon(unit, "flood", f"flood {index}")
        await anyio.wait_all_tasks_blocked()
        group.start_soon(unit, "single", "single")
        await anyio.wait_all_tasks_blocked()
        assert fair.waiting == 99
        gate.set()
    # Two ran at once from the start, a third held the turn and the flood's queue was ahead in
    # the rotation when the single call came: it ran fifth, not a hundred and first.
    assert order.index("single") == 4
    assert sorted(order) == sorted([*(f"flood {i}" for i in range(100)), "single"])
    assert fair.waiting == 0
    assert fair.limiter.borrowed_tokens == 0


async def test_no_caller_runs_more_than_its_share() -> None:
    fair = FairLimiter(anyio.CapacityLimiter(8), per_caller=3)
    peak: dict[str, int] = {}
    release = anyio.Event()

    async def unit(key: str) -> None:
        borrower = object()
        await fair.acquire(key, borrower)
        peak[key] = max(peak.get(key, 0), fair.running(key))
        await release.wait()
        fair.release(key, borrower)

    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(unit, "flood")
        await anyio.wait_all_tasks_blocked()
        assert fair.running("flood") == 3
        group.start_soon(unit, "other")
        await anyio.wait_all_tasks_blocked()
        # The other caller starts at once: the flood holds only its share of the tokens.
        assert fair.running("other") == 1
        release.set()
    assert peak == {"flood": 3, "other": 1}
    assert fair.limiter.borrowed_tokens == 0


async def test_a_caller_that_stops_waiting_leaves_nothing_behind() -> None:
    fair = FairLimiter(anyio.CapacityLimiter(1))
    holder = object()
    await fair.acquire("a", holder)
    with anyio.move_on_after(0.05):
        await fair.acquire("b", object())
    assert fair.waiting == 0
    fair.release("a", holder)
    taken = object()
    with anyio.fail_after(5):
        await fair.acquire("c", taken)
    fair.release("c", taken)
    assert fair.limiter.borrowed_tokens == 0


async def test_database_calls_queue_by_the_caller_the_limiter_names() -> None:
    fair = database_fair_limiter()
    before = (fair.caller, fair.per_caller)
    fair.caller, fair.per_caller = WHO.get, 1
    database = create_database(tables={"items": {"n": "integer"}}, driver=create_memory_driver())
    seen: list[int] = []
    try:
        await database.open()

        def work(session: object) -> None:
            seen.append(fair.running("flood"))

        async def flood() -> None:
            WHO.set("flood")
            await database.driver.run(work, write=False)

        async with anyio.create_task_group() as group:
            for _ in range(20):
                group.start_soon(flood)
    finally:
        fair.caller, fair.per_caller = before
        await database.close()
    assert seen == [1] * 20
