"""Hostile workflows against `orkestrel serve --workflow`: runs whose steps read big files,
authored as a model would. The figures are the bytes the server wrote while it checkpointed,
how long another call waited meanwhile, and what the model is told at the answer bound."""

from __future__ import annotations

import json
import shutil
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from hostile.conftest import ADDRESS_SPACE, Serve
from support.mcp_client import Session, connect, text
from support.servers import spawn_process

pytestmark = pytest.mark.anyio

KIB_64 = 64 * 1024


def reads(count: int, path: str) -> dict[str, Any]:
    """A flat workflow of `count` steps that each read `path` through the workspace tool."""
    step = {"name": "workspace", "input": {"operation": "read", "path": path}}
    return {"name": "reader", "steps": [step] * count}


def server_written(tmp_path: Path) -> int:
    """The bytes the server process (the one whose command line names this test's folder) has
    handed to write calls so far."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            io = (entry / "io").read_text()
        except OSError:
            continue
        if b"serve" in command and str(tmp_path).encode() in b" ".join(command):
            if command[0].endswith(b"prlimit"):
                continue
            for line in io.splitlines():
                if line.startswith("wchar:"):
                    return int(line.split()[1])
    raise AssertionError("the server process is not running")


async def answer(session: Session, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await session.call_tool("workflow", arguments)
    assert not result.get("isError"), text(result)
    return json.loads(text(result))  # type: ignore[no-any-return]


async def test_a_hundred_steps_reading_64_kib_checkpoint_what_changed_and_leave_the_server_free(
    serve: Serve, tmp_path: Path
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "big.txt").write_text("x" * KIB_64)
    waits: list[float] = []
    async with serve("--tools", "workspace,describe", "--workflow") as session:
        await answer(session, reads(1, "big.txt"))
        before = server_written(tmp_path)
        done = anyio.Event()

        async def other_client() -> None:
            while not done.is_set():
                start = time.perf_counter()
                result = await session.call_tool("describe", {"name": "workspace"})
                waits.append(time.perf_counter() - start)
                assert not result.get("isError"), text(result)
                await anyio.sleep(0.05)

        async with anyio.create_task_group() as group:
            group.start_soon(other_client)
            started = time.perf_counter()
            summary = await answer(session, reads(100, "big.txt"))
            took = time.perf_counter() - started
            done.set()
        spent = server_written(tmp_path) - before
    assert summary == {"status": "completed", "count": 100, "durable": True}
    print(
        f"100 x 64 KiB steps: {took:.1f} s, {spent / 1e6:.1f} MB written, "
        f"describe waited at most {max(waits) * 1000:.0f} ms over {len(waits)} calls"
    )
    # The answers are 6.6 MB of JSON; SQLite writes them to its WAL, then to the file.
    assert spent < 3 * 100 * KIB_64 + 8_000_000
    # Generous: the point is that no checkpoint holds the loop for the whole snapshot.
    assert max(waits) < 5.0


async def test_three_hundred_concurrent_8_mib_reads_stop_at_the_answer_bound(
    serve: Serve, tmp_path: Path
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "huge.txt").write_text("y" * (8 * 1024 * 1024 - 64))
    step = {"behavior": "workspace", "input": {"operation": "read", "path": "huge.txt"}}
    wide = {"id": "wide", "phases": [{"tasks": [step] * 300}]}
    async with serve("--tools", "workspace", "--workflow") as session:
        summary = await answer(session, wide)
        healthy = await session.call_tool("workspace", {"operation": "list"})
    assert not healthy.get("isError")
    assert summary["status"] == "stopped"
    fault = summary["fault"]
    assert fault["origin"] == "limit"
    assert fault["message"].endswith(", over max_answer_bytes (33554432 bytes)")
    assert summary["durable"] is True


async def test_the_answer_bound_is_an_option_and_names_itself(serve: Serve, tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "big.txt").write_text("x" * KIB_64)
    async with serve("--tools", "workspace", "--workflow", "--workflow-answer-bytes", "200000") as (
        session
    ):
        summary = await answer(session, reads(5, "big.txt"))
    assert (summary["status"], summary["count"]) == ("stopped", 4)
    assert summary["fault"]["origin"] == "limit"
    assert summary["fault"]["task"] == "phase-3-task-0"
    message = summary["fault"]["message"]
    assert message.startswith("task 'phase-3-task-0' answered ")
    assert message.endswith(", over max_answer_bytes (200000 bytes)")


async def test_a_call_over_the_node_budget_names_the_budget(serve: Serve) -> None:
    steps = [{"name": "workspace", "input": {"rows": [0] * 1000}} for _ in range(300)]
    async with serve("--tools", "workspace", "--workflow") as session:
        result = await session.call_tool("workflow", {"steps": steps})
    assert result.get("isError")
    assert text(result).endswith(
        "malformed workflow definition: it holds more than 262144 JSON values "
        "(the node budget, CLONE_NODE_LIMIT)"
    )


@contextmanager
def http_server(tmp_path: Path) -> Iterator[str]:
    """`orkestrel serve --transport http --workflow` under the address-space cap; its URL."""
    command = [shutil.which("prlimit") or "prlimit", f"--as={ADDRESS_SPACE}", "--"]
    command += [sys.executable, "-m", "orkestrel", "serve", "--transport", "http", "--port", "0"]
    command += ["--root", str(tmp_path / "root"), "--data", str(tmp_path / "data")]
    command += ["--tools", "workspace,describe", "--workflow"]
    with spawn_process(command, tmp_path / "server.log", {"MALLOC_ARENA_MAX": "2"}) as url:
        yield url


async def test_another_clients_health_and_describe_answer_while_a_big_run_checkpoints(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "big.txt").write_text("x" * KIB_64)
    health: list[float] = []
    described: list[float] = []
    with http_server(tmp_path) as url:
        base = url.removesuffix("/mcp")
        async with connect(url) as runner, connect(url) as other:
            done = anyio.Event()

            async def poll() -> None:
                async with httpx.AsyncClient(timeout=60) as client:
                    while not done.is_set():
                        start = time.perf_counter()
                        assert (await client.get(f"{base}/healthz")).status_code == 200
                        health.append(time.perf_counter() - start)
                        start = time.perf_counter()
                        result = await other.call_tool("describe", {"name": "workspace"})
                        described.append(time.perf_counter() - start)
                        assert not result.get("isError"), text(result)
                        await anyio.sleep(0.05)

            await answer(runner, reads(1, "big.txt"))
            before = server_written(tmp_path)
            async with anyio.create_task_group() as group:
                group.start_soon(poll)
                summary = await answer(runner, reads(100, "big.txt"))
                done.set()
            spent = server_written(tmp_path) - before
    assert summary == {"status": "completed", "count": 100, "durable": True}
    print(
        f"over HTTP: /healthz waited at most {max(health) * 1000:.0f} ms, describe "
        f"{max(described) * 1000:.0f} ms, over {len(health)} rounds; {spent / 1e6:.1f} MB written"
    )
    assert spent < 3 * 100 * KIB_64 + 8_000_000
    # Generous bounds: the point is that the run does not hold the loop for seconds.
    assert max(health) < 5.0
    assert max(described) < 5.0
