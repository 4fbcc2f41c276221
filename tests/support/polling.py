"""Waiting for state that another task or a server changes, with a deadline."""

from __future__ import annotations

from collections.abc import Callable

import anyio


async def until(check: Callable[[], object], timeout: float = 10) -> None:
    """Returns once `check()` is truthy; fails after `timeout` seconds."""
    with anyio.fail_after(timeout):
        while not check():  # noqa: ASYNC110 - the state belongs to code that sets no event
            await anyio.sleep(0.01)
