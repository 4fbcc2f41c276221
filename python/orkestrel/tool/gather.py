"""Run awaitables concurrently and collect their results in input order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import anyio
from anyio.lowlevel import current_token

T = TypeVar("T")


async def gather(jobs: list[Callable[[], Coroutine[Any, Any, T]]], limit: int | None) -> list[T]:
    """Runs every job concurrently, at most `limit` at once, and returns results in input order.

    Jobs are expected not to raise `Exception`s; a `BaseException` from one cancels the others
    and propagates.
    """
    if limit is not None:
        limiter = anyio.CapacityLimiter(limit)
        jobs = [_limited(job, limiter) for job in jobs]
    if isinstance(current_token().native_token, asyncio.AbstractEventLoop):
        return await _gather_asyncio(jobs)
    return await _gather_anyio(jobs)


def _limited(
    job: Callable[[], Coroutine[Any, Any, T]], limiter: anyio.CapacityLimiter
) -> Callable[[], Coroutine[Any, Any, T]]:
    async def run() -> T:
        async with limiter:
            return await job()

    return run


async def _gather_asyncio(jobs: list[Callable[[], Coroutine[Any, Any, T]]]) -> list[T]:
    # Plain asyncio tasks cost a fifth of anyio task-group children, which dominates small calls.
    tasks = [asyncio.ensure_future(job()) for job in jobs]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks) if tasks else None
        raise


async def _gather_anyio(jobs: list[Callable[[], Coroutine[Any, Any, T]]]) -> list[T]:
    results: list[Any] = [None] * len(jobs)

    async def run(index: int) -> None:
        results[index] = await jobs[index]()

    try:
        async with anyio.create_task_group() as group:
            for index in range(len(jobs)):
                group.start_soon(run, index)
    except BaseExceptionGroup as group_error:
        if len(group_error.exceptions) == 1:
            raise group_error.exceptions[0] from None
        raise
    return results


async def run_beside(work: Awaitable[T], side: Callable[[], Coroutine[Any, Any, object]]) -> T:
    """Awaits `work` while `side` runs beside it, and cancels `side` once `work` is over; an
    exception from `work` is raised as itself, not inside an exception group."""
    failure: Exception | None = None
    results: list[T] = []
    async with anyio.create_task_group() as group:
        group.start_soon(side)
        try:
            results.append(await work)
        except Exception as error:
            failure = error
        finally:
            group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return results[0]
