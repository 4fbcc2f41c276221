"""Every connection a database opens is closed by `close`, whoever calls it and however."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from orkestrel.database import create_database, create_sqlite_driver
from support.sqlite_ledger import SQLiteLedger

pytestmark = pytest.mark.anyio

TABLES = {"events": {"id": "string", "n": "integer"}}


@pytest.mark.parametrize("where", ["memory", "file"])
async def test_a_close_from_a_cancelled_task_still_closes_the_connection(
    where: str, tmp_path: Path, sqlite_ledger: SQLiteLedger
) -> None:
    driver = create_sqlite_driver(":memory:" if where == "memory" else tmp_path / "events.db")
    database = create_database(tables=TABLES, driver=driver)
    await database.table("events").add({"id": "a", "n": 1})
    with anyio.CancelScope() as scope:
        scope.cancel()
        await database.close()
    assert len(sqlite_ledger.connections) == 1
    assert sqlite_ledger.left_open() == []
    assert database.status == "closed"
