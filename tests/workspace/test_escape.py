"""Escape attempts against `DirectoryWorkspaceStore`: every one refused, nothing outside touched.

Each test builds a real tree in a temp dir: the store root, a workspace folder inside it, and an
`outside` folder next to the root holding a secret. After every attempt the whole temp dir is
compared with how it was, so a refusal that wrote or deleted anything anywhere fails.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import anyio
import pytest

from orkestrel.workspace import (
    DirectoryWorkspaceStore,
    WorkspaceManager,
    WorkspaceSnapshot,
    WorkspaceStoreError,
)
from workspace.samples import tree

pytestmark = pytest.mark.anyio

SECRET = "top secret"


def layout(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "root"
    (root / "w" / "src").mkdir(parents=True)
    (root / "w" / "src" / "a.txt").write_text("inside")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    return root, outside


ESCAPES = [
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    "..",
    "/etc/passwd",
    str(Path("/tmp") / "escape.txt"),
    "C:/Windows/system.ini",
    "c:relative.txt",
    "src\\..\\..\\x.txt",
    "a\\b",
    "a\x00b",
    "./a.txt",
    "src/./a.txt",
    "src//a.txt",
    "src/",
    "",
    ".",
    ".git/hooks/pre-commit",
    "src/.git/config",
    "x.orkestrel-tmp",
    "\udcff.txt",
    "n" * 256,
]


@pytest.mark.parametrize("path", ESCAPES, ids=[repr(p)[:30] for p in ESCAPES])
async def test_unsafe_paths_are_refused_on_save_and_touch_nothing(
    tmp_path: Path, path: str
) -> None:
    root, _ = layout(tmp_path)
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = await manager.open("w")
    assert workspace is not None
    workspace.write("src/new.txt", "written only if the whole save is safe")
    workspace.write(path, "payload")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError) as error:
        await manager.save("w")
    assert error.value.code == "PATH"
    assert tree(tmp_path) == before
    assert not os.path.lexists("/tmp/escape.txt")  # noqa: ASYNC240


@pytest.mark.parametrize("path", ESCAPES[:10], ids=[repr(p)[:30] for p in ESCAPES[:10]])
async def test_unsafe_paths_are_refused_on_read(tmp_path: Path, path: str) -> None:
    root, _ = layout(tmp_path)
    with pytest.raises(WorkspaceStoreError) as error:
        await DirectoryWorkspaceStore(root).read("w", path)
    assert error.value.code == "PATH"


@pytest.mark.parametrize("id", ["..", ".", "", "a/b", "/abs", "a\\b", "C:x", "n\x00", ".git"])
async def test_unsafe_workspace_ids_are_refused(tmp_path: Path, id: str) -> None:
    root, _ = layout(tmp_path)
    store = DirectoryWorkspaceStore(root)
    before = tree(tmp_path)
    for attempt in (store.get(id), store.delete(id), store.read(id, "a.txt")):
        with pytest.raises(WorkspaceStoreError) as error:
            await attempt
        assert error.value.code == "PATH"
    manager = WorkspaceManager(store)
    manager.add(id).write("a.txt", "x")
    with pytest.raises(WorkspaceStoreError):
        await manager.save(id)
    assert tree(tmp_path) == before


async def test_a_symlink_to_an_outside_file_is_never_read_nor_written_through(
    tmp_path: Path,
) -> None:
    root, outside = layout(tmp_path)
    (root / "w" / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "w" / "dots.txt").symlink_to("../../outside/secret.txt")
    store = DirectoryWorkspaceStore(root)
    manager = WorkspaceManager(store)
    workspace = await manager.open("w")
    assert workspace is not None
    assert [file.path for file in workspace.files()] == ["src/a.txt"]
    assert workspace.search(SECRET) == []
    for path in ("leak.txt", "dots.txt"):
        with pytest.raises(WorkspaceStoreError, match="leads outside") as error:
            await store.read("w", path)
        assert error.value.code == "PATH"
        workspace.write(path, "overwrite the secret")
        before = tree(tmp_path)
        with pytest.raises(WorkspaceStoreError, match="symlink out of the workspace folder"):
            await manager.save("w")
        assert tree(tmp_path) == before
        workspace.remove(path)
    assert (outside / "secret.txt").read_text() == SECRET


async def test_a_symlinked_folder_leading_outside_is_not_entered(tmp_path: Path) -> None:
    root, outside = layout(tmp_path)
    (root / "w" / "out").symlink_to(outside, target_is_directory=True)
    (root / "w" / "src" / "deep").symlink_to("../../../outside", target_is_directory=True)
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = await manager.open("w")
    assert workspace is not None
    assert [file.path for file in workspace.files()] == ["src/a.txt"]
    for path in ("out/planted.txt", "out/secret.txt", "src/deep/planted.txt"):
        workspace.write(path, "planted")
        before = tree(tmp_path)
        with pytest.raises(WorkspaceStoreError) as error:
            await manager.save("w")
        assert error.value.code == "PATH"
        assert tree(tmp_path) == before
        workspace.remove(path)
    assert sorted(os.listdir(outside)) == ["secret.txt"]


async def test_a_workspace_folder_that_is_a_symlink_outside_is_refused(tmp_path: Path) -> None:
    root, outside = layout(tmp_path)
    (root / "away").symlink_to(outside, target_is_directory=True)
    (root / "loop").symlink_to(root, target_is_directory=True)
    store = DirectoryWorkspaceStore(root)
    before = tree(tmp_path)
    for id in ("away", "loop"):
        with pytest.raises(WorkspaceStoreError, match="outside the store root"):
            await store.get(id)
        with pytest.raises(WorkspaceStoreError):
            await store.delete(id)
        manager = WorkspaceManager(store)
        manager.add(id).write("planted.txt", "x")
        with pytest.raises(WorkspaceStoreError):
            await manager.save(id)
    assert tree(tmp_path) == before


def test_a_symlink_to_an_outside_fifo_is_never_opened(tmp_path: Path) -> None:
    root, outside = layout(tmp_path)
    os.mkfifo(outside / "pipe")
    (root / "w" / "pipe").symlink_to(outside / "pipe")
    (root / "w" / "zero").symlink_to("/dev/zero")
    results: list[WorkspaceSnapshot | None] = []
    worker = threading.Thread(
        target=lambda: results.append(anyio.run(DirectoryWorkspaceStore(root).get, "w")),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "reading the workspace blocked on the FIFO"
    assert [file.path for file in results[0].files] == ["src/a.txt"]  # type: ignore[union-attr]


async def test_symlinks_that_stay_inside_are_followed_for_files(tmp_path: Path) -> None:
    root, _ = layout(tmp_path)
    (root / "w" / "alias.txt").symlink_to("src/a.txt")
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = await manager.open("w")
    assert workspace is not None
    assert workspace.read(["alias.txt", "src/a.txt"]) == {
        "alias.txt": "inside",
        "src/a.txt": "inside",
    }
    workspace.write("alias.txt", "through the link")
    await manager.save("w")
    assert (root / "w" / "alias.txt").is_symlink()
    assert (root / "w" / "src" / "a.txt").read_text() == "through the link"


async def test_symlink_loops_are_skipped_and_never_written_through(tmp_path: Path) -> None:
    root, _ = layout(tmp_path)
    (root / "w" / "a").symlink_to("b")
    (root / "w" / "b").symlink_to("a")
    (root / "w" / "self").symlink_to(".", target_is_directory=True)
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = await manager.open("w")
    assert workspace is not None
    assert [file.path for file in workspace.files()] == ["src/a.txt"]
    workspace.write("a", "through a loop")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError) as error:
        await manager.save("w")
    assert error.value.code == "CONFLICT"
    assert tree(tmp_path) == before


IGNORED = [".git", ".hg", ".svn", ".orkestrel"]
"""Every name the stores below ignore: the default three, and a data folder the caller hides."""


def ignored_layout(tmp_path: Path, name: str) -> tuple[Path, DirectoryWorkspaceStore]:
    """A workspace holding the ignored folder `name` and symlinks into it from everywhere: a
    file link, a folder link, a link from a sub-folder, a dangling link, and a second workspace
    folder that is itself a link to `name`."""
    root, _ = layout(tmp_path)
    folder = root / "w" / name
    (folder / "hooks").mkdir(parents=True)
    (folder / "config").write_text("[core]\n")
    (root / "w" / "settings.ini").symlink_to(f"{name}/config")
    (root / "w" / "meta").symlink_to(name, target_is_directory=True)
    (root / "w" / "src" / "up.ini").symlink_to(f"../{name}/config")
    (root / "w" / "hook").symlink_to(f"{name}/hooks/post-checkout")
    (root / "linked").symlink_to(f"w/{name}", target_is_directory=True)
    return root, DirectoryWorkspaceStore(root, ignore={".git", ".hg", ".svn", ".orkestrel"})


INTO_IGNORED = [
    "settings.ini",
    "src/up.ini",
    "meta/config",
    "meta/hooks/pre-commit",
    "meta/new.txt",
    "hook",
]


@pytest.mark.parametrize("name", IGNORED)
async def test_symlinks_into_an_ignored_folder_are_never_listed_nor_read(
    tmp_path: Path, name: str
) -> None:
    _, store = ignored_layout(tmp_path, name)
    snapshot = await store.get("w")
    assert snapshot is not None
    assert [file.path for file in snapshot.files] == ["src/a.txt"]
    for path in INTO_IGNORED[:3]:
        with pytest.raises(WorkspaceStoreError, match="ignored name") as error:
            await store.read("w", path)
        assert error.value.code == "PATH"
    with pytest.raises(WorkspaceStoreError, match="ignored name"):
        await store.get("linked")


@pytest.mark.parametrize("path", INTO_IGNORED)
@pytest.mark.parametrize("name", IGNORED)
async def test_writes_through_symlinks_into_an_ignored_folder_are_refused(
    tmp_path: Path, name: str, path: str
) -> None:
    root, store = ignored_layout(tmp_path, name)
    manager = WorkspaceManager(store)
    workspace = await manager.open("w")
    assert workspace is not None
    workspace.write("src/new.txt", "written only if the whole save is safe")
    workspace.write(path, "[core]\n\tfsmonitor = touch /tmp/pwned\n")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError, match="ignored name") as error:
        await manager.save("w")
    assert error.value.code == "PATH"
    assert tree(tmp_path) == before
    assert (root / "w" / name / "config").read_text() == "[core]\n"


@pytest.mark.parametrize("name", IGNORED)
async def test_moves_and_removals_through_symlinks_into_an_ignored_folder_are_refused(
    tmp_path: Path, name: str
) -> None:
    _, store = ignored_layout(tmp_path, name)
    manager = WorkspaceManager(store)
    workspace = await manager.open("w")
    assert workspace is not None
    workspace.move("src/a.txt", "meta/hooks/pre-commit")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError, match="ignored name"):
        await manager.save("w")
    assert tree(tmp_path) == before
    assert workspace.remove("settings.ini") is False
    linked = manager.add("linked")
    linked.write("planted.txt", "x")
    with pytest.raises(WorkspaceStoreError, match="ignored name"):
        await manager.save("linked")
    with pytest.raises(WorkspaceStoreError, match="ignored name"):
        await store.delete("linked")
    await store.delete("w")
    assert tree(tmp_path) == {
        path: entry for path, entry in before.items() if path != "root/w/src/a.txt"
    }


@pytest.mark.parametrize(
    ("path", "message"),
    [("a/" * 2100 + "x.txt", "4205 bytes long"), ("d/" * 300 + "x.txt", "301 levels deep")],
    ids=["2100-levels", "300-levels"],
)
async def test_a_path_2100_levels_deep_is_a_typed_path_error(
    tmp_path: Path, path: str, message: str
) -> None:
    root, _ = layout(tmp_path)
    store = DirectoryWorkspaceStore(root)
    with pytest.raises(WorkspaceStoreError, match=message) as read:
        await store.read("w", path)
    assert read.value.code == "PATH"
    manager = WorkspaceManager(store)
    workspace = await manager.open("w")
    assert workspace is not None
    workspace.write(path, "deep")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError, match=message) as saved:
        await manager.save("w")
    assert saved.value.code == "PATH"
    assert len(str(saved.value)) < 200
    assert tree(tmp_path) == before
