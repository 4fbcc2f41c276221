"""Fixtures of the MCP bridge tests: the served tool set, and servers run as real processes."""

from __future__ import annotations

import importlib.util
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from support.servers import spawn_process

HERE = Path(__file__).resolve().parent
APP = HERE / "app.py"

Spawn = Callable[..., AbstractContextManager[str]]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"orkestrel_mcp_test_{path.stem}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def app() -> ModuleType:
    """The test tool set, loaded from `app.py`."""
    return _load(APP)


@dataclass(frozen=True)
class Plugin:
    """A test plugin written to `directory` as module `module`, with its `.dist-info`."""

    directory: Path
    module: str


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Plugin]:
    """A tool-factory plugin visible to `importlib.metadata` through `sys.path`."""
    module = f"orkestrel_plugin_{uuid.uuid4().hex[:12]}"
    directory = tmp_path / "site"
    directory.mkdir()
    _load(HERE / "plugin.py").write_plugin(directory, module)
    monkeypatch.syspath_prepend(str(directory))
    yield Plugin(directory, module)
    sys.modules.pop(module, None)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def spawn_http() -> Spawn:
    """Starts a server process that prints `listening on <url>` to stderr, as a context manager
    that yields the URL and stops the process on exit."""
    return spawn_process


@pytest.fixture(scope="module")
def app_url(spawn_http: Spawn, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of `app.py` served over streamable HTTP by a subprocess, shared by a module."""
    log = tmp_path_factory.mktemp("http") / "server.log"
    with spawn_http([sys.executable, str(APP), "--transport", "http"], log) as url:
        yield url


Post = Callable[..., tuple[int, bytes]]


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read()


@pytest.fixture(scope="session")
def http_post() -> Post:
    """Sends one raw MCP POST (blocking); gives the status and the body."""
    return _post
