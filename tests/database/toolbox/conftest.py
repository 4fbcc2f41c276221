"""Fixtures for the database tool: a tool and a fresh database id on each engine."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import (
    POSTGRES_SCHEMA_PREFIX,
    create_memory_driver,
    create_postgres_factory,
    create_sqlite_factory,
)
from orkestrel.toolbox import ToolboxError, create_database_tool

from ..conftest import drop_schema


@dataclass
class Setup:
    """What a tool test needs: the driver registry, the driver to create with, and an id; the
    tools listed in `tools` have the id destroyed after the test.
    """

    drivers: dict[str, Any]
    driver: str
    id: str
    tools: list[Any] = field(default_factory=list)

    def tool(self, **options: Any) -> Any:
        """Builds a database tool over this setup's drivers, destroyed after the test."""
        built = create_database_tool(drivers=self.drivers, **options)
        self.tools.append(built)
        return built


@pytest.fixture
async def setup(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[Setup]:
    """A driver registry and a database id for the test's engine."""
    id = f"shop_{uuid.uuid4().hex[:12]}"
    dsn = ""
    if engine == "memory":
        built = Setup({"memory": create_memory_driver}, "memory", id)
    elif engine == "sqlite":
        built = Setup({"sqlite": create_sqlite_factory(tmp_path / "dbs")}, "sqlite", id)
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        built = Setup({"postgres": create_postgres_factory(dsn)}, "postgres", id)
    yield built
    for tool in built.tools:
        for known in ("mine", id, "other"):
            with contextlib.suppress(ToolboxError):
                await tool.execute({"operation": "destroy", "id": known})
    if dsn:
        drop_schema(dsn, POSTGRES_SCHEMA_PREFIX + id)
