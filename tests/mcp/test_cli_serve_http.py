"""`orkestrel serve` as a real process: its serving options (`--timeout`, `--token`,
`--session-idle`, `--max-sessions`), graceful stops on SIGTERM, and memory that stays flat
however many HTTP sessions come and go."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from support.mcp_client import connect, stdio, text
from support.plugins import tool_plugin
from support.serve_http import INITIALIZE

pytestmark = pytest.mark.anyio

ORKESTREL = [sys.executable, "-m", "orkestrel"]
HEADERS = {"Accept": "application/json, text/event-stream"}

SLEEPY = """
import anyio
from orkestrel.tool import create_tool


async def nap(args):
    await anyio.sleep(float(args.get("seconds", 30)))
    return "rested"


def sleepy(context):
    return create_tool(name="nap", execute=nap)
"""


def sleepy_plugin(directory: Path) -> dict[str, str]:
    """Writes a plugin whose `nap` tool sleeps; gives the environment that finds it."""
    return tool_plugin(directory, SLEEPY, "sleepy")


def rss_kib(pid: int) -> int:
    """The resident memory of a process, from `/proc`."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS line")


def opened(client: httpx.Client, url: str) -> int:
    """Opens one session with an initialize request and leaves it open; gives the status."""
    return client.post(url, json=INITIALIZE, headers=HEADERS).status_code


def listening(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if line.startswith("listening on "):
                return line.removeprefix("listening on ").strip()
        if process.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"the server did not start:\n{log.read_text()}")


def start(tmp_path: Path, *argv: str, env: dict[str, str] | None = None) -> tuple[Any, str, Path]:
    log = tmp_path / f"serve-{uuid.uuid4().hex[:6]}.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [*ORKESTREL, "serve", "--transport", "http", "--port", "0", *argv],
            stdin=subprocess.DEVNULL,
            stderr=sink,
            cwd=tmp_path,
            env={**os.environ, **(env or {})},
        )
    return process, listening(process, log), log


def stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(15)


async def test_serve_http_exits_zero_on_sigterm(tmp_path: Path) -> None:
    process, url, log = start(tmp_path, "--tools", "infer")
    try:
        async with connect(url) as client:
            answer = await client.call_tool("infer", {"samples": [1, 2]})
    finally:
        status = stop(process)
    assert answer.get("isError", False) is False
    assert status == 0
    assert "Traceback" not in log.read_text()


def test_serve_stdio_exits_zero_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [*ORKESTREL, "serve", "--tools", "infer"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    with process:
        hello = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-11-25"}}
        process.stdin.write(json.dumps(hello).encode() + b"\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        status = stop(process)
        assert process.stderr is not None
        errors = process.stderr.read()
    assert status == 0
    assert b"Traceback" not in errors


async def test_timeout_bounds_every_call(tmp_path: Path) -> None:
    env = sleepy_plugin(tmp_path)
    argv = ["serve", "--tools", "sleepy", "--timeout", "0.5"]
    async with connect(stdio(ORKESTREL[0], [*ORKESTREL[1:], *argv], env)) as client:
        slow = await client.call_tool("nap", {"seconds": 30})
        quick = await client.call_tool("nap", {"seconds": 0})
    assert (slow.get("isError"), text(slow)) == (True, "tool timed out after 500 ms")
    assert text(quick) == "rested"


async def test_the_token_comes_from_the_option_or_the_environment(tmp_path: Path) -> None:
    for argv, env in ((["--token", "opt"], {}), ([], {"ORKESTREL_TOKEN": "opt"})):
        process, url, _ = start(tmp_path, "--tools", "infer", *argv, env=env)
        try:
            refused = await anyio.to_thread.run_sync(
                functools.partial(httpx.post, url, json=INITIALIZE, headers=HEADERS, timeout=30)
            )
            async with connect(url, headers={"Authorization": "Bearer opt"}) as client:
                answer = await client.call_tool("infer", {"samples": [True]})
        finally:
            assert stop(process) == 0
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert answer.get("isError", False) is False


def test_a_public_bind_without_a_token_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    done = subprocess.run(
        [*ORKESTREL, "serve", "--transport", "http", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={key: value for key, value in os.environ.items() if key != "ORKESTREL_TOKEN"},
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "orkestrel serve: refusing to serve 0.0.0.0 without a token: anyone who can reach it "
        "could call every tool"
    )
    assert os.listdir(tmp_path) == []


def test_sessions_past_the_bound_are_refused_until_idle_ones_expire(tmp_path: Path) -> None:
    process, url, _ = start(tmp_path, "--tools", "infer", "--max-sessions", "3")
    try:
        with httpx.Client(timeout=30) as http:
            statuses = [opened(http, url) for _ in range(4)]
    finally:
        assert stop(process) == 0
    assert statuses == [200, 200, 200, 503]
    process, url, _ = start(
        tmp_path, "--tools", "infer", "--max-sessions", "2", "--session-idle", "0.5"
    )
    try:
        with httpx.Client(timeout=30) as http:
            first = [opened(http, url) for _ in range(3)]
            deadline = time.monotonic() + 30
            again = opened(http, url)
            while again != 200 and time.monotonic() < deadline:
                time.sleep(0.1)
                again = opened(http, url)
    finally:
        assert stop(process) == 0
    assert first == [200, 200, 503]
    assert again == 200


def test_http_memory_stays_flat_over_5000_sessions(tmp_path: Path) -> None:
    process, url, _ = start(tmp_path, "--tools", "infer", "--session-idle", "0.5")
    try:
        with httpx.Client(timeout=30) as http:
            statuses = [opened(http, url) for _ in range(1000)]
            time.sleep(1.5)
            warm = rss_kib(process.pid)
            statuses += [opened(http, url) for _ in range(4000)]
            time.sleep(1.5)
            after = rss_kib(process.pid)
    finally:
        assert stop(process) == 0
    refused = [status for status in statuses if status != 200]
    assert refused == []
    # Kept sessions cost about 40 kB each (160 MB for 4,000); expired ones give it back.
    assert after - warm < 20_000, f"grew from {warm} to {after} KiB"
