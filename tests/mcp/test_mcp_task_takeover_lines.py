"""A workflow task outlives the SDK line of the server that started it: a 2.x-line `orkestrel
serve` starts it for a client that declared the Tasks extension and is killed mid-run, and a
1.x-line server on the same store, which serves no tasks but runs the broker that adopts stale
ones, finishes it; its own client reads the run to its end.

Needs an interpreter of each line: this one, and the other's named by `ORKESTREL_MCP1_PYTHON`
(from a 2.x-line run) or `ORKESTREL_MCP2_PYTHON` (from a 1.x-line run); without it the test
skips."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from support.mcp_client import MAJOR, connect
from support.napper import napper_env, naps, shared_store, steps, stored_rows
from support.serve_http import served

pytestmark = pytest.mark.anyio

STARTER = """
import json
import sys

import anyio
import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from orkestrel.mcp.task_client import TasksExtension, CreatedTask, get_task


async def main(url, token, workflow):
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        target = streamable_http_client(url, http_client=http)
        async with Client(target, extensions=[TasksExtension()]) as client:
            arguments = json.loads(workflow)
            handle = await client.session.call_tool("workflow", arguments, allow_claimed=True)
            assert isinstance(handle, CreatedTask), handle
            # The first step is checkpointed before its progress is reported.
            with anyio.fail_after(30):
                while True:
                    answer = await get_task(client.session, handle.task_id)
                    meta = answer.get("_meta", {}).get("orkestrel/progress", {})
                    if meta.get("progress", 0) >= 1:
                        break
                    await anyio.sleep(0.1)
    print(handle.task_id, flush=True)


anyio.run(main, *sys.argv[1:])
"""
"""Run by the 2.x interpreter: starts a workflow (its JSON the third argument) as a task and
prints its id once the first step is checkpointed."""


def line_of(python: str) -> int:
    """The major version of the MCP SDK `python` has installed."""
    done = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(done.stdout.split(".")[0])


def interpreter(major: int) -> str:
    """An interpreter with the MCP SDK's `major` line: this one, or the one the environment
    names; skips when there is none."""
    if (MAJOR >= 2) == (major >= 2):
        return sys.executable
    variable = f"ORKESTREL_MCP{major}_PYTHON"
    python = os.environ.get(variable, "")
    if not python:
        pytest.skip(f"needs an interpreter with the MCP SDK's {major}.x line: set {variable}")
    assert line_of(python) == major, f"{variable}={python} has not the {major}.x line"
    return python


async def run_of(session: Any, name: str, seconds: float) -> list[str]:
    """Reads stored run `name` through the workflow tool until it is no longer running; gives
    each status it read, the same one once."""
    seen: list[str] = []
    with anyio.fail_after(seconds):
        while not seen or seen[-1] in ("running", "pending"):
            answer = await session.call_tool("workflow", {"run": name})
            assert not answer.get("isError"), answer
            status = answer["structuredContent"]["status"]
            seen += [status] if status not in seen[-1:] else []
            await anyio.sleep(0.5)
    return seen


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_task_a_killed_2x_server_started_is_finished_by_a_1x_server(
    tmp_path: Path, backend: str
) -> None:
    newer, older = interpreter(2), interpreter(1)
    env = napper_env(tmp_path)
    with shared_store(tmp_path, backend) as store:
        argv = ["--workflow", "--tools", "nap", *store, "--token", "a"]
        with served(tmp_path, *argv, env=env, python=older) as (_, survivor):
            with served(tmp_path, *argv, env=env, python=newer) as (pid, doomed):
                starter = await anyio.run_process(
                    [newer, "-c", STARTER, f"{doomed}/mcp", "a", json.dumps(steps("k", 3, 3))],
                    env={**os.environ, **env},
                )
                task = starter.stdout.decode().strip()
                # Mid-way through the second step: its side effect is not written yet.
                os.kill(pid, signal.SIGKILL)
            mode = "legacy" if MAJOR >= 2 else None
            headers = {"Authorization": "Bearer a"}
            async with connect(f"{survivor}/mcp", mode=mode, headers=headers) as session:
                capabilities = session.capabilities()
                seen = await run_of(session, "k", 120)
        rows = await stored_rows(store)
    # The 1.x line serves no tasks: the run is what its client can see.
    assert "tasks" not in capabilities
    # The run was still running when the 2.x server died, and finished after.
    assert seen == ["running", "completed"]
    # Each step ran exactly once: the first was not run again after the takeover.
    assert naps(tmp_path) == ["k0", "k1", "k2"]
    assert rows == [(task, "completed")]
