"""The served infer tool on a large input: progress by steps to a client that asked for it, the
same schema as an uncounted call, and nothing to a client that did not ask."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from orkestrel.toolbox import INFER_TOOL_PROGRESS_SAMPLES
from support.mcp_client import Session, connect, stdio
from support.serve_http import http_server

pytestmark = pytest.mark.anyio

COUNT = 6 * INFER_TOOL_PROGRESS_SAMPLES


def _samples() -> list[dict[str, Any]]:
    return [
        {"id": n, "name": f"user {n}", **({"email": f"u{n}@example.org"} if n % 3 else {})}
        for n in range(COUNT)
    ]


@asynccontextmanager
async def _served(transport: str, tmp_path: Path) -> AsyncIterator[Session]:
    if transport == "http":
        async with http_server("--ask") as (url, _), connect(url) as client:
            yield client
        return
    argv = ["serve", "--root", str(tmp_path), "--data", str(tmp_path / "data")]
    async with connect(stdio(sys.executable, ["-m", "orkestrel", *argv])) as client:
        yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_large_inference_reports_its_progress_only_when_asked(
    tmp_path: Path, transport: str
) -> None:
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    arguments = {"samples": _samples(), "format": True}
    async with _served(transport, tmp_path) as client:
        counted = await client.call_tool("infer", arguments, progress=on_progress)
        quiet = await client.call_tool("infer", arguments)
        sent = [n for n in client.notifications if n["method"] == "notifications/progress"]
    assert counted.get("isError", False) is False
    assert counted["structuredContent"] == quiet["structuredContent"]
    assert counted["structuredContent"]["required"] == ["id", "name"]
    assert heard, "no progress reached the client"
    assert len(sent) == len(heard)
    done = [report[0] for report in heard]
    assert done == sorted(set(done))
    assert done[-1] == COUNT
    for read, total, message in heard:
        assert (total, message) == (COUNT, f"infer: {int(read)} of {COUNT} samples read")
