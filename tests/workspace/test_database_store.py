"""`DatabaseWorkspaceStore`: snapshots as rows of a real table, in memory, in a SQLite file and
in PostgreSQL.
"""

from __future__ import annotations

import base64
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from orkestrel.database import DriverInterface, create_database, create_sqlite_driver
from orkestrel.workspace import (
    BinaryContent,
    DatabaseWorkspaceStore,
    WorkspaceManager,
    WorkspaceSnapshot,
    WorkspaceStoreError,
    create_database_workspace_store,
    create_file,
)
from orkestrel.workspace.stores.database import WORKSPACES_COLUMNS, WORKSPACES_TABLE
from workspace.samples import png

pytestmark = pytest.mark.anyio

MakeDriver = Callable[[], DriverInterface]


def project() -> WorkspaceSnapshot:
    icon = create_file("logo.png", BinaryContent(base64.b64encode(png()).decode(), "image/png"))
    manager = WorkspaceManager()
    workspace = manager.add("project", [icon])
    workspace.write({"src/main.py": "answer = 42\n", "README.md": "# Été 😀\r\n"})
    workspace.append("README.md", "more")
    return workspace.snapshot()


async def test_snapshots_round_trip_and_delete(make_driver: MakeDriver) -> None:
    store = create_database_workspace_store(make_driver())
    try:
        snapshot = project()
        assert await store.get("project") is None
        await store.set(snapshot)
        assert await store.get("project") == snapshot
        await store.set(WorkspaceSnapshot("project", snapshot.files[:1]))
        assert await store.get("project") == WorkspaceSnapshot("project", snapshot.files[:1])
        await store.delete("project")
        await store.delete("project")
        assert await store.get("project") is None
    finally:
        await store.close()


async def test_edits_are_saved_on_save_and_survive_a_new_driver(make_driver: MakeDriver) -> None:
    first = create_database_workspace_store(make_driver())
    manager = WorkspaceManager(first)
    workspace = manager.add("w")
    workspace.write("notes.txt", "hello")
    assert await first.get("w") is None, "edits are not saved until save()"
    assert await manager.save("w") is True
    workspace.append("notes.txt", " world")
    assert await manager.save("w") is True
    await first.close()
    second = create_database_workspace_store(make_driver())
    try:
        reader = WorkspaceManager(second)
        opened = await reader.open("w")
        if make_driver.__name__ == "create_memory_driver":
            assert opened is None, "a private in-memory database is not shared"
        else:
            assert opened is not None
            assert opened.read("notes.txt") == "hello world"
            assert opened.snapshot() == workspace.snapshot()
    finally:
        await second.close()


async def test_a_row_that_is_not_a_snapshot_reads_as_absent(make_driver: MakeDriver) -> None:
    database = create_database(tables={WORKSPACES_TABLE: WORKSPACES_COLUMNS}, driver=make_driver())
    table = database.table(WORKSPACES_TABLE)
    store = DatabaseWorkspaceStore(table, database)
    try:
        for id, blob in {
            "text": "not a snapshot",
            "list": [1, 2],
            "no files": {"id": "no files"},
            "bad file": {"id": "bad file", "files": [{"path": "a", "content": {}}]},
            "deep": {"id": "deep", "files": [{"path": "a", "content": {"text": [[[[]]]]}}]},
            "bad base64": {"id": "bad base64", "files": [{"path64": "!", "content": {}}]},
        }.items():
            await table.set({"id": id, "snapshot": blob})
            assert await store.get(id) is None
        assert repr(store) == "DatabaseWorkspaceStore(table='workspaces')"
    finally:
        await store.close()


async def test_nul_characters_and_lone_surrogates_round_trip(make_driver: MakeDriver) -> None:
    store = create_database_workspace_store(make_driver())
    try:
        manager = WorkspaceManager(store)
        workspace = manager.add("w")
        workspace.write({"a.txt": "nul \x00 here", "b\x00.txt": "lone \ud800", "c\udfff": "x"})
        await manager.save("w")
        assert await store.get("w") == workspace.snapshot()
        for id in ("bad\x00id", "bad\ud800id"):
            manager.add(id).write("a.txt", "x")
            with pytest.raises(WorkspaceStoreError, match="text a table can hold") as error:
                await manager.save(id)
            assert error.value.code == "ENCODING"
            assert await store.get("w") == workspace.snapshot()
    finally:
        await store.close()


READER = textwrap.dedent(
    """
    import sys, anyio
    from orkestrel.database import create_sqlite_driver
    from orkestrel.workspace import WorkspaceManager, create_database_workspace_store

    async def main(path):
        store = create_database_workspace_store(create_sqlite_driver(path))
        workspace = await WorkspaceManager(store).open("project")
        print(workspace.read("src/main.py"), end="")
        await store.close()

    anyio.run(main, sys.argv[1])
    """
)


async def test_another_process_reads_what_was_saved_to_a_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "workspaces.sqlite3"
    store = create_database_workspace_store(create_sqlite_driver(path))
    await store.set(project())
    await store.close()
    done = await anyio.run_process([sys.executable, "-c", READER, str(path)])
    assert done.stdout.decode() == "answer = 42\n"
