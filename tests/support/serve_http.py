"""`orkestrel serve --transport http` on a free loopback port: in this process, or as a
process of its own."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from orkestrel.cli.serve import register, run_serve
from support.polling import until

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
"""A raw MCP `initialize` request, opening a session on protocol 2025-06-18."""


def parse_serve(*argv: str) -> argparse.Namespace:
    """Parses `orkestrel serve ARGV...`."""
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


@asynccontextmanager
async def http_server(*argv: str) -> AsyncIterator[tuple[str, io.StringIO]]:
    """Runs `orkestrel serve --transport http --port 0 --tools infer ARGV...` until the block
    ends; yields the MCP endpoint's URL and the server's stderr so far. Needs `--ask`."""
    err = io.StringIO()
    options = parse_serve(
        "--transport", "http", "--port", "0", "--tools", "infer", "--root", "/nonexistent", *argv
    )
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))
        await until(
            lambda: "answer forms at " in err.getvalue() or "orkestrel serve:" in err.getvalue(), 60
        )
        assert "orkestrel serve:" not in err.getvalue(), err.getvalue()
        url = err.getvalue().split("listening on ", 1)[1].split()[0]
        try:
            yield url, err
        finally:
            group.cancel_scope.cancel()


@contextlib.contextmanager
def served(
    tmp_path: Path,
    *argv: str,
    files: int | None = None,
    env: dict[str, str] | None = None,
    python: str = sys.executable,
) -> Iterator[tuple[int, str]]:
    """Runs `orkestrel serve --transport http --port 0 --tools infer ARGV...` as a process of
    `python` (under an open-file limit of `files` when given, with `env` added to the
    environment); yields its pid and base URL (no `/mcp`), and stops it with SIGTERM."""
    log = tmp_path / f"serve-{uuid.uuid4().hex[:6]}.log"
    command = [python, "-m", "orkestrel", "serve", "--transport", "http"]
    command += ["--port", "0", "--tools", "infer", "--root", str(tmp_path), *argv]
    if files is not None:
        prlimit = shutil.which("prlimit")
        assert prlimit is not None, "the hostile suite needs prlimit (util-linux)"
        command = [prlimit, f"--nofile={files}", "--", *command]
    environment = {**os.environ, **(env or {})}
    with log.open("w") as sink:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stderr=sink, cwd=tmp_path, env=environment
        )
    try:
        deadline = time.monotonic() + 60
        url = ""
        while not url and time.monotonic() < deadline and process.poll() is None:
            for line in log.read_text().splitlines():
                if line.startswith("listening on "):
                    url = line.removeprefix("listening on ").strip().removesuffix("/mcp")
            time.sleep(0.05)
        assert url, log.read_text()
        yield process.pid, url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(15)


@asynccontextmanager
async def serving_manager(manager: Any, **options: Any) -> AsyncIterator[str]:
    """Runs `orkestrel.mcp.serve(manager, "http", port=0, **options)` in this process until
    the block ends; yields the MCP endpoint's URL."""
    # Deferred: the MCP SDK is an optional dependency, loaded by the tests that serve.
    from orkestrel.mcp import serve

    async with anyio.create_task_group() as group:
        url = await group.start(functools.partial(serve, manager, "http", port=0, **options))
        yield url
        group.cancel_scope.cancel()
