"""Fixtures of the MCP bridge tests: the served tool set, and servers run as real processes."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent
APP = HERE / "app.py"

Spawn = Callable[[list[str], Path], AbstractContextManager[str]]


@pytest.fixture(scope="session")
def app() -> ModuleType:
    """The test tool set, loaded from `app.py`."""
    spec = importlib.util.spec_from_file_location("orkestrel_mcp_test_app", APP)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@contextmanager
def _spawn_http(command: list[str], log: Path) -> Iterator[str]:
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=sink)
    try:
        deadline = time.monotonic() + 60
        url = None
        while url is None:
            for line in log.read_text().splitlines():
                if line.startswith("listening on "):
                    url = line.removeprefix("listening on ").strip()
            if url is None:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{log.read_text()}")
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)


@pytest.fixture(scope="session")
def spawn_http() -> Spawn:
    """Starts a server process that prints `listening on <url>` to stderr, as a context manager
    that yields the URL and stops the process on exit."""
    return _spawn_http


@pytest.fixture(scope="module")
def app_url(spawn_http: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of `app.py` served over streamable HTTP by a subprocess, shared by a module."""
    log = tmp_path_factory.mktemp("http") / "server.log"
    with spawn_http([sys.executable, str(APP), "--transport", "http"], log) as url:
        yield url
