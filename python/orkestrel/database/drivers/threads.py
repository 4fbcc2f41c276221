"""The worker-thread limiter of the database layer, apart from the one sync tool handlers use,
so that busy tools never hold up a query and busy queries never hold up the tools."""

from __future__ import annotations

from typing import Final

import anyio
from anyio.lowlevel import RunVar

DATABASE_THREAD_LIMIT: Final = 16
"""How many units of work the database layer runs in worker threads at once per event loop,
across all its drivers: the size of the `database_thread_limiter()`."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("orkestrel_database_threads")


def database_thread_limiter() -> anyio.CapacityLimiter:
    """Returns the current event loop's limiter for the database layer's worker threads,
    created with `DATABASE_THREAD_LIMIT` tokens on first use; set its `total_tokens` to change
    the size."""
    try:
        return _LIMITER.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(DATABASE_THREAD_LIMIT)
        _LIMITER.set(limiter)
        return limiter
