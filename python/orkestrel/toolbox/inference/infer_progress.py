"""`InferProgress`: a large inference run step by step, reporting how far it has got."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio.lowlevel

from orkestrel.contract import SchemaBuilder
from orkestrel.toolbox.inference.constants import INFER_TOOL_PROGRESS_SAMPLES
from orkestrel.toolbox.inference.types import InferCheck

Report = Callable[[int, int, str], Awaitable[None]]
"""Sends `done` of `total` with a message: a `ProgressPacer`'s `report`, which bounds the rate."""


class InferProgress:
    """Runs an infer call's samples into a schema, and its candidates through their checks,
    `INFER_TOOL_PROGRESS_SAMPLES` at a time, reporting after each step and letting other tasks
    run between them; its progress counts samples read and candidates checked together."""

    __slots__ = ("_candidates", "_report", "_samples", "total")

    def __init__(self, report: Report, samples: list[Any], candidates: list[Any]) -> None:
        self._report = report
        self._samples = samples
        self._candidates = candidates
        self.total = len(samples) + len(candidates)
        """Every sample and candidate of the call: the `total` its reports carry."""

    def _message(self, read: int, checked: int) -> str:
        text = f"infer: {read} of {len(self._samples)} samples read"
        if not self._candidates:
            return text
        return f"{text}, {checked} of {len(self._candidates)} candidates checked"

    async def infer(self, builder: SchemaBuilder) -> Any:
        """Adds the samples to `builder` step by step and returns its schema."""
        count = len(self._samples)
        for start in range(0, count, INFER_TOOL_PROGRESS_SAMPLES):
            builder.add_many(self._samples[start : start + INFER_TOOL_PROGRESS_SAMPLES])
            read = min(start + INFER_TOOL_PROGRESS_SAMPLES, count)
            await self._report(read, self.total, self._message(read, 0))
            await anyio.lowlevel.checkpoint()
        return builder.to_schema()

    async def check(self, check: Callable[[int], InferCheck]) -> list[InferCheck]:
        """Checks every candidate by its index, step by step, and returns the checks."""
        count, read = len(self._candidates), len(self._samples)
        checks: list[InferCheck] = []
        for start in range(0, count, INFER_TOOL_PROGRESS_SAMPLES):
            end = min(start + INFER_TOOL_PROGRESS_SAMPLES, count)
            checks.extend(check(index) for index in range(start, end))
            await self._report(read + end, self.total, self._message(read, end))
            await anyio.lowlevel.checkpoint()
        return checks
