"""Fixtures of the workflow tests: anyio backends, and database drivers for the table store."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

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
        yield lambda: create_sqlite_driver(tmp_path / "workflows.sqlite3")
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        schema = f"f_{uuid.uuid4().hex[:16]}"
        yield lambda: create_postgres_driver(dsn, schema=schema)
        drop_schema(dsn, schema)
