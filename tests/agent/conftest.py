"""Fixtures of the agent tests: anyio backends, the loopback provider servers, and database
drivers for the conversation table store."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent.servers import Backend
from database.conftest import drop_schema, postgres_dsn
from orkestrel.database import (
    DriverInterface,
    create_memory_driver,
    create_postgres_driver,
    create_sqlite_driver,
)

__all__ = ["postgres_dsn"]


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


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def make_driver(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], DriverInterface]]:
    """Builds drivers of one engine that share one store (a SQLite file, a PostgreSQL schema),
    so a second driver reads what the first wrote, except in memory.
    """
    if request.param == "memory":
        yield create_memory_driver
    elif request.param == "sqlite":
        yield lambda: create_sqlite_driver(tmp_path / "conversations.sqlite3")
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        schema = f"a_{uuid.uuid4().hex[:16]}"
        yield lambda: create_postgres_driver(dsn, schema=schema)
        drop_schema(dsn, schema)


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
