"""Property: any sequence of edits, saved through the memory store, the directory store and the
database table store, leaves the same files with the same contents, on disk and when read back.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from orkestrel.workspace import (
    DirectoryWorkspaceStore,
    MemoryWorkspaceStore,
    WorkspaceError,
    WorkspaceInterface,
    WorkspaceManager,
    create_database_workspace_store,
    range_of,
)

PATHS = ["a.txt", "b.md", "dir/c.py", "dir/sub/d.txt", "e f/ü.txt", "x"]
paths = st.sampled_from(PATHS)
texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=12) | st.sampled_from(
    ["", "line\n", "a\r\nb", "😀e\u0301", "GIF89a not an image"]
)
coordinates = st.integers(min_value=0, max_value=4)

operations = st.one_of(
    st.tuples(st.just("write"), paths, texts),
    st.tuples(st.just("append"), paths, texts),
    st.tuples(st.just("prepend"), paths, texts),
    st.tuples(st.just("splice"), paths, texts, coordinates, coordinates, coordinates, coordinates),
    st.tuples(st.just("move"), paths, paths),
    st.tuples(st.just("remove"), paths),
    st.tuples(st.just("replace"), texts.filter(bool), texts),
    st.tuples(st.just("save")),
)


def apply(workspace: WorkspaceInterface, operation: tuple[Any, ...]) -> object:
    kind, *rest = operation
    try:
        if kind == "splice":
            path, text, *span = rest
            return workspace.write(path, text, range_of(*span))
        if kind == "replace":
            return workspace.replace(*rest)
        return getattr(workspace, kind)(*rest)
    except WorkspaceError as error:
        return error.code


def contents(workspace: WorkspaceInterface) -> dict[str, str | None]:
    return {file.path: workspace.read(file.path) for file in workspace.files()}


def on_disk(folder: Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {
        path.relative_to(folder).as_posix(): path.read_bytes().decode("utf-8")
        for path in folder.rglob("*")
        if path.is_file()
    }


async def run(root: Path, script: list[tuple[Any, ...]]) -> None:
    kept, table = MemoryWorkspaceStore(), create_database_workspace_store()
    managers = [
        WorkspaceManager(kept),
        WorkspaceManager(DirectoryWorkspaceStore(root)),
        WorkspaceManager(table),
    ]
    left, right, row = (manager.add("w") for manager in managers)
    for operation in [*script, ("save",)]:
        if operation[0] == "save":
            for manager in managers:
                assert await manager.save("w")
            assert on_disk(root / "w") == contents(left)
        else:
            assert apply(left, operation) == apply(right, operation) == apply(row, operation)
    assert contents(left) == contents(right) == contents(row)
    reopened = [
        await WorkspaceManager(store).open("w")
        for store in (kept, DirectoryWorkspaceStore(root), table)
    ]
    assert [contents(workspace) for workspace in reopened if workspace] == [contents(left)] * 3
    await table.close()


@settings(max_examples=150)
@given(script=st.lists(operations, max_size=25))
def test_memory_directory_and_table_stores_hold_the_same_files(
    script: list[tuple[Any, ...]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        anyio.run(run, Path(folder), script)
