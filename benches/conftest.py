"""Shared benchmark fixtures: a long-lived asyncio loop so loop start-up is not measured."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    runner = asyncio.new_event_loop()
    yield runner
    runner.close()


@pytest.fixture(autouse=True)
def _quiet_gc() -> Iterator[None]:
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()
