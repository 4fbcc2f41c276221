"""Atomic writes of the directory store: a failure or a killed process never leaves a half file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

from orkestrel.workspace import DirectoryWorkspaceStore, WorkspaceManager
from orkestrel.workspace.stores.temporary import LOCKS, create_temporary
from workspace.samples import tree

pytestmark = pytest.mark.anyio

OLD = "old " * 100_000
NEW = "new " * 100_000


async def edited(root: Path) -> WorkspaceManager:
    """A manager whose workspace `w` was saved holding OLD and now holds NEW, unsaved."""
    manager = WorkspaceManager(DirectoryWorkspaceStore(root))
    workspace = manager.add("w")
    workspace.write("big.txt", OLD)
    await manager.save("w")
    workspace.write("big.txt", NEW)
    return manager


async def test_a_failure_mid_write_keeps_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = await edited(tmp_path)
    real_write = os.write

    def half(descriptor: int, data: object) -> int:
        real_write(descriptor, bytes(data)[:1000])  # type: ignore[call-overload]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", half)
    with pytest.raises(OSError, match="No space left"):
        await manager.save("w")
    monkeypatch.undo()
    assert (tmp_path / "w" / "big.txt").read_text() == OLD
    assert list(tree(tmp_path)) == ["w", "w/big.txt"]


async def test_a_failed_rename_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = await edited(tmp_path)

    def refuse(source: str, target: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(PermissionError):
        await manager.save("w")
    monkeypatch.undo()
    assert (tmp_path / "w" / "big.txt").read_text() == OLD
    assert list(tree(tmp_path)) == ["w", "w/big.txt"]


WRITER = textwrap.dedent(
    """
    import sys, anyio
    from orkestrel.workspace import DirectoryWorkspaceStore, WorkspaceManager

    async def main(root):
        manager = WorkspaceManager(DirectoryWorkspaceStore(root))
        workspace = await manager.open("w")
        texts = ["old " * 1_000_000, "new " * 1_000_000]
        round = 0
        while True:
            workspace.write("big.txt", texts[round % 2])
            await manager.save("w")
            round += 1
            print(round, flush=True)

    anyio.run(main, sys.argv[1])
    """
)


def kill_writer(tmp_path: Path, chance: random.Random) -> None:
    """Starts `WRITER` over `tmp_path` and kills it with SIGKILL at a random moment of its write."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    writer.stdout.readline()
    time.sleep(chance.uniform(0.0, 0.05))
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    writer.stdout.close()


def test_a_killed_writer_leaves_the_old_or_the_new_file_never_a_mix(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "big.txt").write_text("old " * 1_000_000)
    whole = {"old " * 1_000_000, "new " * 1_000_000}
    chance = random.Random(7)
    for _ in range(5):
        kill_writer(tmp_path, chance)
        assert (tmp_path / "w" / "big.txt").read_text() in whole
    leftovers = [path for path in os.listdir(tmp_path / "w") if path != "big.txt"]
    assert all(name.endswith(".orkestrel-tmp") for name in leftovers)


def test_temporary_files_left_by_killed_writers_are_cleaned_when_the_folder_is_opened(
    tmp_path: Path,
) -> None:
    (tmp_path / "w" / "src").mkdir(parents=True)
    (tmp_path / "w" / "big.txt").write_text("old " * 1_000_000)
    chance = random.Random(3)
    for _ in range(5):
        kill_writer(tmp_path, chance)
    left = tmp_path / "w" / "src" / ".orkestrel-0123456789abcdef.orkestrel-tmp"
    left.write_text("half a write, as a writer killed before its rename leaves it")
    snapshot = anyio.run(DirectoryWorkspaceStore(tmp_path).get, "w")
    assert snapshot is not None
    assert [file.path for file in snapshot.files] == ["big.txt"]
    assert sorted(tree(tmp_path)) == ["w", "w/big.txt", "w/src"]


@pytest.mark.skipif(not LOCKS, reason="live writers are told apart by their locks")
async def test_a_temporary_file_a_live_writer_holds_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "w").mkdir()
    temporary, descriptor = create_temporary(str(tmp_path / "w"))
    try:
        (tmp_path / "w" / "kept.orkestrel-tmp").write_text("not one of ours: no prefix")
        (tmp_path / "w" / ".orkestrel-link.orkestrel-tmp").symlink_to("kept.orkestrel-tmp")
        before = tree(tmp_path)
        await DirectoryWorkspaceStore(tmp_path).get("w")
        assert tree(tmp_path) == before
    finally:
        os.close(descriptor)
    await DirectoryWorkspaceStore(tmp_path, clean=False).get("w")
    assert Path(temporary).exists()  # noqa: ASYNC240
    await DirectoryWorkspaceStore(tmp_path).get("w")
    assert not Path(temporary).exists()  # noqa: ASYNC240
