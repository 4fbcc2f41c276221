"""`DirectoryWorkspaceStore`: real files on disk, binary images, limits, persistence on `save`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orkestrel.workspace import (
    DirectoryWorkspaceStore,
    WorkspaceError,
    WorkspaceManager,
    WorkspaceStoreError,
    create_directory_workspace_store,
    range_of,
)
from workspace.samples import png, tree

pytestmark = pytest.mark.anyio


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "root" / "project"
    (folder / "src" / "deep").mkdir(parents=True)
    (folder / "README.md").write_bytes("# Projet\r\nété 😀\n".encode())
    (folder / "src" / "main.py").write_text("answer = 41\n")
    (folder / "src" / "deep" / "ü.txt").write_text("\ufeffbom kept")
    (folder / "logo.png").write_bytes(png())
    (folder / "blob.bin").write_bytes(b"\x00\xff\xfe binary")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("[core]\n")
    return tmp_path / "root"


async def test_get_reads_text_and_images_and_leaves_the_rest_out(tmp_path: Path) -> None:
    store = DirectoryWorkspaceStore(project(tmp_path))
    snapshot = await store.get("project")
    assert snapshot is not None
    assert snapshot.id == "project"
    assert [file.path for file in snapshot.files] == [
        "README.md",
        "logo.png",
        "src/deep/ü.txt",
        "src/main.py",
    ]
    manager = WorkspaceManager(store)
    workspace = await manager.open("project")
    assert workspace is not None
    assert workspace.read("README.md") == "# Projet\r\nété 😀\n"
    assert workspace.read("src/deep/ü.txt") == "\ufeffbom kept"
    logo = workspace.file("logo.png")
    assert logo is not None
    assert logo.content.mime == "image/png"
    assert logo.size == len(png())
    assert await store.get("absent") is None


async def test_a_png_reads_as_binary_and_text_operations_on_it_are_modality_errors(
    tmp_path: Path,
) -> None:
    manager = WorkspaceManager(DirectoryWorkspaceStore(project(tmp_path)))
    workspace = await manager.open("project")
    assert workspace is not None
    assert workspace.read("logo.png") is None
    edits = [
        lambda: workspace.read("logo.png", range_of(1, 1, 1, 2)),
        lambda: workspace.write("logo.png", "x", range_of(1, 1, 1, 2)),
        lambda: workspace.prepend("logo.png", "x"),
        lambda: workspace.append("logo.png", "x"),
    ]
    for edit in edits:
        with pytest.raises(WorkspaceError, match=r"binary file: logo\.png") as error:
            edit()
        assert error.value.code == "MODALITY"
    assert workspace.search("PNG") == []


async def test_edits_reach_the_disk_on_save_and_not_before(tmp_path: Path) -> None:
    root = project(tmp_path)
    before = tree(root)
    manager = WorkspaceManager(create_directory_workspace_store(root))
    workspace = await manager.open("project")
    assert workspace is not None
    workspace.write("src/main.py", "42", range_of(1, 10, 1, 12))
    workspace.write("docs/new.md", "new")
    workspace.remove("README.md")
    workspace.move("src/deep/ü.txt", "moved.txt")
    assert tree(root) == before, "nothing persists before save"
    assert await manager.save("project") is True
    folder = root / "project"
    assert (folder / "src" / "main.py").read_text() == "answer = 42\n"
    assert (folder / "docs" / "new.md").read_text() == "new"
    assert (folder / "moved.txt").read_text() == "\ufeffbom kept"
    assert not (folder / "README.md").exists()
    assert not (folder / "src" / "deep").exists(), "emptied folders are pruned"
    assert (folder / "logo.png").read_bytes() == png(), "untouched images keep their bytes"
    assert (folder / "blob.bin").read_bytes() == b"\x00\xff\xfe binary", "unadmitted files stay"
    assert (folder / ".git" / "config").read_text() == "[core]\n"
    reread = await WorkspaceManager(DirectoryWorkspaceStore(root)).open("project")
    assert reread is not None
    assert {f.path: f.content for f in reread.files()} == {
        f.path: f.content for f in workspace.files()
    }


async def test_a_save_rewrites_only_changed_files_and_keeps_their_mode(tmp_path: Path) -> None:
    root = project(tmp_path)
    script = root / "project" / "src" / "main.py"
    script.chmod(0o751)
    readme = root / "project" / "README.md"
    os.utime(readme, (1_000_000, 1_000_000))
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = await manager.open("project")
    assert workspace is not None
    workspace.append("src/main.py", "# more\n")
    await manager.save("project")
    assert script.stat().st_mode & 0o777 == 0o751
    assert readme.stat().st_mtime == 1_000_000, "an unchanged file is not rewritten"
    assert not [p for p in tree(root) if p.endswith(".orkestrel-tmp")]


async def test_new_files_follow_the_umask(tmp_path: Path) -> None:
    store = DirectoryWorkspaceStore(tmp_path)
    manager = WorkspaceManager(store)
    manager.add("w").write("a.txt", "x")
    await manager.save("w")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "w" / "a.txt").stat().st_mode & 0o777 == 0o666 & ~mask


async def test_the_size_limit_is_applied_on_read_and_on_write(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "project" / "big.txt").write_text("x" * 101)
    store = DirectoryWorkspaceStore(root, limit=100)
    snapshot = await store.get("project")
    assert snapshot is not None
    assert "big.txt" not in [file.path for file in snapshot.files]
    with pytest.raises(WorkspaceStoreError, match="over the 100-byte limit") as error:
        await store.read("project", "big.txt")
    assert error.value.code == "LIMIT"
    manager = WorkspaceManager(store)
    workspace = await manager.open("project")
    assert workspace is not None
    workspace.write("ok.txt", "fine")
    workspace.write("huge.txt", "é" * 51)
    before = tree(root)
    with pytest.raises(WorkspaceStoreError, match="102 bytes, over the 100-byte limit") as error:
        await manager.save("project")
    assert (error.value.code, error.value.context) == (
        "LIMIT",
        {"path": "huge.txt", "size": 102, "limit": 100},
    )
    assert tree(root) == before, "a refused save touches nothing"


async def test_read_gives_one_file_or_a_typed_refusal(tmp_path: Path) -> None:
    store = DirectoryWorkspaceStore(project(tmp_path))
    readme = await store.read("project", "README.md")
    assert readme is not None
    assert readme.lines == 3
    assert await store.read("project", "missing.txt") is None
    assert await store.read("project", "src") is None
    assert await store.read("absent", "README.md") is None
    with pytest.raises(WorkspaceStoreError, match="neither UTF-8 text nor a supported image"):
        await store.read("project", "blob.bin")
    with pytest.raises(WorkspaceStoreError, match="ignored name"):
        await store.read("project", ".git/config")


async def test_unencodable_content_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    manager = WorkspaceManager(DirectoryWorkspaceStore(tmp_path))
    workspace = manager.add("w")
    workspace.write({"a.txt": "fine", "b.txt": "lone \ud800 surrogate"})
    with pytest.raises(WorkspaceStoreError, match="cannot be encoded") as error:
        await manager.save("w")
    assert error.value.code == "ENCODING"
    assert tree(tmp_path) == {}


async def test_files_and_folders_cannot_trade_places_unsafely(tmp_path: Path) -> None:
    store = DirectoryWorkspaceStore(tmp_path)
    manager = WorkspaceManager(store)
    workspace = manager.add("w")
    workspace.write({"a": "file", "a/b": "under a file"})
    with pytest.raises(WorkspaceStoreError, match="needs 'a' to be a folder") as error:
        await manager.save("w")
    assert error.value.code == "CONFLICT"
    assert tree(tmp_path) == {}
    workspace.remove("a")
    workspace.write("c/d.txt", "deep")
    await manager.save("w")
    workspace.remove(["a/b", "c/d.txt"])
    workspace.write({"a": "now a file", "c": "also a file", "a2/x": "y"})
    await manager.save("w")
    assert (tmp_path / "w" / "a").read_text() == "now a file"
    assert (tmp_path / "w" / "c").read_text() == "also a file"
    (tmp_path / "w" / "keep").mkdir()
    (tmp_path / "w" / "keep" / "blob.bin").write_bytes(b"\xff")
    workspace.write("keep", "cannot replace a folder holding other files")
    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError, match="folder holding other files") as error:
        await manager.save("w")
    assert error.value.code == "CONFLICT"
    assert tree(tmp_path) == before


async def test_delete_removes_admitted_files_and_keeps_the_rest(tmp_path: Path) -> None:
    root = project(tmp_path)
    store = DirectoryWorkspaceStore(root)
    await store.delete("project")
    assert tree(root / "project") == {
        ".git": ("dir", b""),
        ".git/config": ("file", b"[core]\n"),
        "blob.bin": ("file", b"\x00\xff\xfe binary"),
    }
    snapshot = await store.get("project")
    assert snapshot is not None
    assert snapshot.files == ()
    manager = WorkspaceManager(store)
    manager.add("gone").write("a/b.txt", "x")
    await manager.save("gone")
    await store.delete("gone")
    assert not (root / "gone").exists()
    assert await store.get("gone") is None
    await store.delete("never")


async def test_non_regular_files_are_skipped_without_blocking(tmp_path: Path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    os.mkfifo(folder / "pipe")
    (folder / "a.txt").write_text("a")
    snapshot = await DirectoryWorkspaceStore(tmp_path).get("w")
    assert snapshot is not None
    assert [file.path for file in snapshot.files] == ["a.txt"]
    with pytest.raises(WorkspaceStoreError, match="not a regular file"):
        await DirectoryWorkspaceStore(tmp_path).read("w", "pipe")


def test_the_limit_must_be_a_non_negative_integer(tmp_path: Path) -> None:
    for limit in (-1, 1.5, True):
        with pytest.raises(ValueError, match="non-negative integer"):
            DirectoryWorkspaceStore(tmp_path, limit=limit)  # type: ignore[arg-type]
    assert DirectoryWorkspaceStore(tmp_path).root == os.path.realpath(tmp_path)


async def test_files_changed_by_someone_else_are_never_clobbered(tmp_path: Path) -> None:
    root = project(tmp_path)
    folder = root / "project"
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = await manager.open("project")
    assert workspace is not None
    (folder / "README.md").write_text("edited by a person")
    (folder / "src" / "main.py").write_text("also edited")
    workspace.append("src/main.py", "# agent\n")
    before = tree(root)
    with pytest.raises(WorkspaceStoreError, match="changed by someone else") as error:
        await manager.save("project")
    assert (error.value.code, error.value.context) == ("CONFLICT", {"path": "src/main.py"})
    assert tree(root) == before
    workspace.write("src/main.py", "also edited")
    workspace.remove("README.md")
    with pytest.raises(WorkspaceStoreError, match=r"README\.md"):
        await manager.save("project")
    workspace.write("README.md", "# Projet\r\nété 😀\n")
    workspace.write("blob.bin", "text over a file the store never showed")
    with pytest.raises(WorkspaceStoreError, match=r"never read by this store: 'blob\.bin'"):
        await manager.save("project")
    workspace.remove("blob.bin")
    await manager.save("project")
    assert (folder / "README.md").read_text() == "edited by a person", "unchanged in the workspace"


async def test_a_store_deletes_only_what_it_has_read_or_written(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "project" / "later.txt").write_text("appeared after the read")
    fresh = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = fresh.add("project")
    workspace.write("added.txt", "new")
    await fresh.save("project")
    assert (root / "project" / "later.txt").exists()
    assert (root / "project" / "README.md").exists()
    assert (root / "project" / "added.txt").read_text() == "new"
    workspace.remove("added.txt")
    await fresh.save("project")
    assert not (root / "project" / "added.txt").exists()
