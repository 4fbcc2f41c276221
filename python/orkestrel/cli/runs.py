"""The database that keeps the workflow runs of `orkestrel serve`, and beside them its MCP
tasks and (when durable) the events of its HTTP sessions."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

import anyio

from orkestrel.cli.options import data_of
from orkestrel.cli.workflow import WORKFLOWS_FILE
from orkestrel.database import DriverInterface, create_sqlite_driver

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState


async def open_runs_driver(
    options: argparse.Namespace, shared: SharedState | None
) -> DriverInterface:
    """A driver of the database that keeps the workflow runs: the `--database` PostgreSQL, or
    the SQLite file under `--data` (which is created first)."""
    if shared is not None:
        return shared.driver()
    data = data_of(options)
    await anyio.Path(data).mkdir(parents=True, exist_ok=True)
    return create_sqlite_driver(data / WORKFLOWS_FILE)
