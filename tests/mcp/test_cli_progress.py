"""`orkestrel serve` shows long work: a client that sent a progress token gets
`notifications/progress` with a message as the work goes on, at a bounded rate; a call without
a token gets none."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from support.mcp_client import connect, stdio

pytestmark = pytest.mark.anyio

STEPS = 300


def _steps() -> list[dict[str, Any]]:
    return [{"name": "infer", "input": {"samples": [{"a": index}]}} for index in range(STEPS)]


def _argv(tmp_path: Path) -> list[str]:
    (tmp_path / "root").mkdir(exist_ok=True)
    return [
        "-m",
        "orkestrel",
        "serve",
        "--workflow",
        "--root",
        str(tmp_path / "root"),
        "--data",
        str(tmp_path / "data"),
    ]


async def test_a_300_step_workflow_reports_progress_per_task(tmp_path: Path) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with connect(stdio(sys.executable, _argv(tmp_path))) as client:
        answer = await client.call_tool(
            "workflow", {"name": "long", "steps": _steps()}, progress=on_progress
        )
    assert answer.get("isError", False) is False
    assert seen, "no progress reached the client"
    assert len(seen) <= STEPS
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)
    assert {total for _, total, _ in seen} == {STEPS}
    assert seen[-1][0] == STEPS
    assert all(message and "of 300 tasks" in message for _, _, message in seen)


async def test_a_workflow_called_without_a_token_sends_no_progress(tmp_path: Path) -> None:
    async with connect(stdio(sys.executable, _argv(tmp_path))) as client:
        answer = await client.call_tool("workflow", {"name": "quiet", "steps": _steps()[:20]})
        sent = [n for n in client.notifications if n["method"] == "notifications/progress"]
    assert answer.get("isError", False) is False
    assert sent == []
