"""The `nap` test plugin of the MCP tasks suites, and the shared store the served processes keep
their runs and tasks on."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import anyio

from support.postgres import fresh_database

NAPPER = '''
"""A test plugin: `nap` sleeps, then appends its tag to naps.log under the root; `doze` does
the same and opts in to running as an MCP task."""

import os

import anyio
from orkestrel.tool import create_tool

PARAMETERS = {
    "type": "object",
    "properties": {"seconds": {"type": "number"}, "tag": {"type": "string"}},
}


def napping(context):
    log = os.path.join(str(context.root), "naps.log")

    async def run(args):
        await anyio.sleep(float(args.get("seconds", 0)))
        with open(log, "a") as sink:
            sink.write(str(args.get("tag", "")) + "\\n")
        return {"tag": args.get("tag", "")}

    return run


def nap(context, name="nap", description="Sleeps for some seconds, then notes its tag."):
    return create_tool(
        name=name,
        description=description,
        parameters=PARAMETERS,
        execute=napping(context),
        task=name == "doze",
    )


def doze(context):
    return nap(context, "doze", "Sleeps as nap does; its calls run as MCP tasks.")
'''


def napper_env(tmp_path: Path) -> dict[str, str]:
    """The environment a served process needs to load the `nap` plugin."""
    directory = tmp_path / "plugin"
    info = directory / "napper-1.0.dist-info"
    info.mkdir(parents=True)
    (directory / "napper.py").write_text(NAPPER)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: napper\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[orkestrel.tools]\nnap = napper:nap\ndoze = napper:doze\n"
    )
    paths = [str(directory), os.environ.get("PYTHONPATH", "")]
    return {"PYTHONPATH": os.pathsep.join(path for path in paths if path)}


def steps(tag: str, count: int, seconds: float) -> dict[str, Any]:
    naps = [
        {"name": "nap", "input": {"seconds": seconds, "tag": f"{tag}{i}"}} for i in range(count)
    ]
    return {"name": tag, "steps": naps}


TASK_ROWS = "SELECT id, status FROM mcp_tasks"


def stored(data: Path, query: str) -> list[tuple[Any, ...]]:
    """The rows `query` reads from the SQLite file that keeps the runs and the tasks."""
    with closing(sqlite3.connect(data / "workflows.sqlite3")) as database:
        return database.execute(query).fetchall()


def naps(root: Path) -> list[str]:
    log = root / "naps.log"
    return log.read_text().split() if log.exists() else []


@contextmanager
def shared_store(tmp_path: Path, backend: str) -> Iterator[list[str]]:
    """The serve options of one shared store: a `--data` folder (its SQLite file) or a fresh
    PostgreSQL database."""
    if backend == "sqlite":
        yield ["--data", str(tmp_path / "data")]
        return
    with fresh_database("tasks") as dsn:
        yield ["--database", dsn]


async def stored_rows(store: list[str]) -> list[tuple[str, str]]:
    """The id and status of every task row the shared store (`shared_store`) keeps."""
    flag, where = store
    if flag == "--data":
        return [(str(id), str(status)) for id, status in stored(Path(where), TASK_ROWS)]
    import psycopg

    dsn = where

    def read() -> list[tuple[str, str]]:
        with psycopg.connect(dsn) as connection:
            return [
                (str(id), str(status))
                for id, status in connection.execute(
                    'SELECT "id", "status" FROM orkestrel."mcp_tasks"'
                ).fetchall()
            ]

    return await anyio.to_thread.run_sync(read)
