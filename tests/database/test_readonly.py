"""A read-only SQLite database changes no file, and opens on a read-only directory."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from orkestrel.database import DatabaseError, create_database, create_sqlite_driver
from support.readonly import readonly_folder
from support.sqlite_ledger import SQLiteLedger

pytestmark = pytest.mark.anyio

TABLES = {"notes": {"id": "string", "body": "string"}}
ROWS = [{"id": "a", "body": "first"}, {"id": "b", "body": "second"}]
READER = textwrap.dedent(
    """
    import json, sys, anyio
    from orkestrel.database import create_database, create_sqlite_driver

    async def main(path):
        database = create_database(
            tables={"notes": {"id": "string", "body": "string"}},
            driver=create_sqlite_driver(path),
            version=1,
            readonly=True,
        )
        notes = database.table("notes")
        print(json.dumps({"rows": await notes.records(), "count": await notes.count()}))
        await database.close()

    anyio.run(main, sys.argv[1])
    """
)


def state(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file under `folder`: its digest and its modification time in nanoseconds."""
    return {
        path.relative_to(folder).as_posix(): (
            hashlib.sha256(path.read_bytes()).hexdigest(),
            path.stat().st_mtime_ns,
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


async def written(folder: Path) -> Path:
    path = folder / "notes.sqlite3"
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path), version=1)
    await database.table("notes").add(ROWS)
    await database.close()
    return path


async def test_a_readonly_sqlite_open_changes_no_file(tmp_path: Path) -> None:
    path = await written(tmp_path)
    before = state(tmp_path)
    assert list(before) == ["notes.sqlite3"]
    reader = create_database(
        tables=TABLES, driver=create_sqlite_driver(path), version=1, readonly=True
    )
    notes = reader.table("notes")
    assert await notes.records() == ROWS
    assert await notes.count() == 2
    with pytest.raises(DatabaseError) as refused:
        await notes.add({"id": "c", "body": "refused"})
    assert refused.value.code == "DRIVER"
    await reader.close()
    assert state(tmp_path) == before


async def test_a_readonly_open_sees_the_rows_of_a_live_writer(tmp_path: Path) -> None:
    path = await written(tmp_path)
    reader = create_database(
        tables=TABLES, driver=create_sqlite_driver(path), version=1, readonly=True
    )
    assert await reader.table("notes").count() == 2
    writer = create_database(tables=TABLES, driver=create_sqlite_driver(path), version=1)
    await writer.table("notes").add({"id": "c", "body": "while the reader is open"})
    assert await reader.table("notes").count() == 3
    await writer.table("notes").add({"id": "d", "body": "and again"})
    assert await reader.table("notes").keys() == ["a", "b", "c", "d"]
    await writer.close()
    assert await reader.table("notes").count() == 4
    await reader.close()


def test_readonly_sqlite_works_on_a_readonly_directory(tmp_path: Path) -> None:
    anyio.run(written, tmp_path)
    before = state(tmp_path)
    with readonly_folder(tmp_path) as prefix:
        if prefix is None:
            pytest.skip("no way to make a folder read-only here (no unshare, running as root)")
        done = subprocess.run(
            [*prefix, sys.executable, "-c", READER, str(tmp_path / "notes.sqlite3")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"rows": ROWS, "count": 2}
    assert state(tmp_path) == before


def junk(folder: Path, writer: bool) -> Path:
    """A file that is no database, with the `-wal` file a live writer leaves when asked."""
    path = folder / "junk.sqlite3"
    path.write_bytes(b"not a database" * 100)
    if writer:
        Path(f"{path}-wal").write_bytes(b"")
    return path


@pytest.mark.parametrize("writer", [False, True], ids=["alone", "with-wal"])
async def test_a_readonly_open_of_a_file_that_is_no_database_closes_what_it_opened(
    tmp_path: Path, writer: bool, sqlite_ledger: SQLiteLedger
) -> None:
    path = junk(tmp_path, writer)
    database = create_database(tables=TABLES, driver=create_sqlite_driver(path), readonly=True)
    with pytest.raises(DatabaseError, match="file is not a database"):
        await database.open()
    await database.close()
    assert sqlite_ledger.connections
    assert sqlite_ledger.left_open() == []
