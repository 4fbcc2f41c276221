"""Fixtures of the agent tests: anyio backends, the loopback provider servers, and (shared with
the workspace tests) database drivers for the conversation table store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.servers import Backend
from workspace.conftest import make_driver, postgres_dsn

__all__ = ["make_driver", "postgres_dsn"]


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="session")
def loopback() -> Iterator[Backend]:
    """One loopback server for the session."""
    server = Backend()
    yield server
    server.stop()


@pytest.fixture
def backend(loopback: Backend) -> Iterator[Backend]:
    """The loopback server with nothing queued and nothing recorded."""
    loopback.reset()
    yield loopback
    loopback.reset()


HTTPX_TRIO = "ignore:Async generator 'http(x|core)[.]:ResourceWarning"
"""httpx and httpcore implement their byte streams as nested async generators, so a response
closed before its body ends (a stream stopped by an abort, a refused body) leaves inner
generators for trio to finalize, and trio warns. The response itself is closed; see
encode/httpx#3777."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.filterwarnings(HTTPX_TRIO))
