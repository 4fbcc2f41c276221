"""Thread limiters kept per event loop, shared by the layers that run work in worker threads."""

from __future__ import annotations

import anyio
from anyio.lowlevel import RunVar


def loop_limiter(var: RunVar[anyio.CapacityLimiter], tokens: float) -> anyio.CapacityLimiter:
    """Returns the current event loop's limiter held in `var`, created with `tokens` tokens on
    first use."""
    try:
        return var.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(tokens)
        var.set(limiter)
        return limiter
