"""The served workspace tool: `--root` edited in place, every change saved or undone, and
`--readonly` enforced at the tool and at the store."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.cli.readonly_store import ReadonlyWorkspaceStore
from orkestrel.cli.workspace import open_workspace_tool
from orkestrel.workspace import create_directory_workspace_store

pytestmark = pytest.mark.anyio


async def run(tool: Any, **arguments: Any) -> Any:
    try:
        return await tool.execute(arguments)
    except Exception as error:
        return ("error", type(error).__name__, str(error))


async def test_changes_land_in_the_root_folder_itself(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Project\n")
    tool = open_workspace_tool(root, readonly=False)
    assert await run(tool, operation="read", path="README.md") == "# Project\n"
    await run(tool, operation="append", path="README.md", content="More.\n")
    await run(tool, operation="write", path="src/main.py", content="print('hi')\n")
    await run(tool, operation="move", **{"from": "src/main.py", "to": "src/app.py"})
    assert (root / "README.md").read_text() == "# Project\nMore.\n"
    assert (root / "src" / "app.py").read_text() == "print('hi')\n"
    assert not (root / "src" / "main.py").exists()
    assert sorted(os.listdir(tmp_path)) == ["project"]


async def test_a_missing_root_is_created_on_the_first_change(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    tool = open_workspace_tool(root, readonly=False)
    assert await run(tool, operation="list") == []
    assert not root.exists()
    await run(tool, operation="write", path="a.txt", content="a")
    assert (root / "a.txt").read_text() == "a"


async def test_a_refused_change_is_undone_in_memory_too(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    tool = open_workspace_tool(root, readonly=False)
    refused = await run(tool, operation="write", path="../outside.txt", content="x")
    assert refused[0] == "error"
    assert "outside" in refused[2]
    assert await run(tool, operation="has", path="../outside.txt") is False
    assert await run(tool, operation="write", path="kept.txt", content="kept") == {
        "path": "kept.txt",
        "state": "created",
    }
    assert sorted(os.listdir(root)) == ["kept.txt"]
    assert sorted(os.listdir(tmp_path)) == ["project"]


async def test_concurrent_changes_are_all_kept(tmp_path: Path) -> None:
    root = tmp_path / "project"
    tool = open_workspace_tool(root, readonly=False)

    async def append(index: int) -> None:
        await run(tool, operation="append", path="log.txt", content=f"{index}\n")

    async with anyio.create_task_group() as group:
        for index in range(20):
            group.start_soon(append, index)
    lines = (root / "log.txt").read_text().splitlines()
    assert sorted(lines, key=int) == [str(index) for index in range(20)]


async def test_readonly_refuses_changes_at_the_tool(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a")
    tool = open_workspace_tool(root, readonly=True)
    for operation, extra in [
        ("write", {"path": "a.txt", "content": "b"}),
        ("remove", {"path": "a.txt"}),
        ("replace", {"query": "a", "replacement": "b"}),
    ]:
        assert await run(tool, operation=operation, **extra) == (
            "error",
            "ToolboxError",
            f"operation '{operation}' is disabled in readonly mode",
        )
    assert await run(tool, operation="read", path="a.txt") == "a"
    assert (root / "a.txt").read_text() == "a"
    assert tool.annotations == {
        "readOnlyHint": True,
        "openWorldHint": False,
        "title": "Workspace files",
    }


async def test_readonly_refuses_writes_at_the_store(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a")
    store = ReadonlyWorkspaceStore(create_directory_workspace_store(tmp_path))
    snapshot = await store.get("project")
    assert snapshot is not None
    with pytest.raises(PermissionError, match="read-only"):
        await store.set(snapshot)
    with pytest.raises(PermissionError, match="read-only"):
        await store.delete("project")
    assert sorted(os.listdir(root)) == ["a.txt"]


async def test_readonly_over_a_missing_root_creates_nothing(tmp_path: Path) -> None:
    tool = open_workspace_tool(tmp_path / "absent", readonly=True)
    assert await run(tool, operation="list") == []
    assert os.listdir(tmp_path) == []


def test_the_filesystem_root_cannot_be_served() -> None:
    with pytest.raises(ValueError, match="--root cannot be the filesystem root"):
        open_workspace_tool(Path("/"), readonly=True)


async def test_the_toolbox_data_inside_the_root_is_hidden(tmp_path: Path) -> None:
    root = tmp_path / "project"
    data = root / ".orkestrel"
    data.mkdir(parents=True)
    (data / "notes.txt").write_text("the toolbox's own")
    (root / "visible.txt").write_text("yes")
    tool = open_workspace_tool(root, readonly=False, data=data)
    assert [file["path"] for file in await run(tool, operation="list")] == ["visible.txt"]
    refused = await run(tool, operation="write", path=".orkestrel/notes.txt", content="x")
    assert refused[0] == "error"
    assert (data / "notes.txt").read_text() == "the toolbox's own"
    outside = open_workspace_tool(root, readonly=False, data=tmp_path / "elsewhere")
    assert len(await run(outside, operation="list")) == 2


def _call_in_a_capped_process(root: Path, arguments: dict[str, Any]) -> Any:
    """Runs `orkestrel tools call workspace` as its own process with 2 GiB of address space, so
    a result built without a bound aborts that process rather than the machine."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    command = [sys.executable, "-m", "orkestrel", "tools", "call", "workspace", "--root"]
    command += [str(root), "--data", str(root.parent / "data"), "--args", json.dumps(arguments)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, preexec_fn=cap)


@pytest.mark.skipif(sys.platform != "linux", reason="caps the address space with setrlimit")
@pytest.mark.parametrize(
    ("query", "code"), [("", "PATTERN"), ("a", "LIMIT")], ids=["empty", "amplifying"]
)
def test_a_replace_over_a_4_mib_file_is_a_typed_error_not_an_abort(
    tmp_path: Path, query: str, code: str
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    original = "a" * (4 << 20)
    (root / "big.txt").write_text(original)
    done = _call_in_a_capped_process(
        root, {"operation": "replace", "query": query, "replacement": "x" * 600}
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["success"] is False
    assert ("query is empty" if code == "PATTERN" else "8388608-byte limit") in result["error"]
    assert (root / "big.txt").read_text() == original
    assert sorted(os.listdir(root)) == ["big.txt"]


def _git(*argv: str, cwd: Path) -> str:
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd)}
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env=environment,
    )
    return done.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to clone a repository")
async def test_a_cloned_repository_with_symlinks_into_git_and_the_data_folder_stays_untouched(
    tmp_path: Path,
) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    _git("init", "-q", cwd=origin)
    (origin / "README.md").write_text("# Project\n")
    (origin / "settings.ini").symlink_to(".git/config")
    (origin / "meta").symlink_to(".git", target_is_directory=True)
    _git("add", "-A", cwd=origin)
    _git("commit", "-q", "-m", "links", cwd=origin)
    _git("clone", "-q", str(origin), "project", cwd=tmp_path)
    root = tmp_path / "project"
    assert (root / "settings.ini").is_symlink()
    assert (root / "meta").is_symlink()
    data = root / ".orkestrel"
    data.mkdir()
    (data / "notes.txt").write_text("the toolbox's own")
    (root / "notes").symlink_to(".orkestrel/notes.txt")
    (root / "state").symlink_to(".orkestrel", target_is_directory=True)
    config = (root / ".git" / "config").read_text()
    marker = tmp_path / "pwned"
    tool = open_workspace_tool(root, readonly=False, data=data)

    listed = [file["path"] for file in await run(tool, operation="list")]
    assert listed == ["README.md"]
    for path in ("settings.ini", "meta/config", "notes", "state/notes.txt"):
        assert await run(tool, operation="read", path=path) == (
            "error",
            "WorkspaceStoreError",
            f"Path leads through a symlink into an ignored name: {path!r}",
        )
    assert await run(tool, operation="read", path="missing.md") is None
    assert await run(tool, operation="search", query="core") == []
    assert await run(tool, operation="search", query="toolbox") == []
    attack = f"\n[core]\n\tfsmonitor = touch {marker}\n"
    for operation, extra in [
        ("append", {"path": "settings.ini", "content": attack}),
        ("prepend", {"path": "settings.ini", "content": attack}),
        ("write", {"path": "settings.ini", "content": attack}),
        ("write", {"path": "meta/config", "content": attack}),
        ("write", {"path": "meta/hooks/pre-commit", "content": f"#!/bin/sh\ntouch {marker}\n"}),
        ("write", {"path": "notes", "content": "overwritten"}),
        ("write", {"path": "state/definitions.sqlite3", "content": "planted"}),
        ("move", {"from": "README.md", "to": "meta/hooks/post-checkout"}),
        ("move", {"from": "README.md", "to": "state/README.md"}),
    ]:
        refused = await run(tool, operation=operation, **extra)
        assert refused[0] == "error", (operation, extra)
        assert "ignored name" in refused[2]
    assert await run(tool, operation="remove", path="settings.ini") == {
        "path": "settings.ini",
        "removed": False,
    }
    assert await run(tool, operation="replace", query="core", replacement="x") == {
        "occurrences": 0,
        "files": 0,
    }
    assert [file["path"] for file in await run(tool, operation="list")] == ["README.md"]

    assert (root / ".git" / "config").read_text() == config
    assert not (root / ".git" / "hooks" / "pre-commit").exists()
    assert not (root / ".git" / "hooks" / "post-checkout").exists()
    assert (data / "notes.txt").read_text() == "the toolbox's own"
    assert sorted(os.listdir(data)) == ["notes.txt"]
    assert (root / "README.md").read_text() == "# Project\n"
    _git("status", "--short", cwd=root)
    assert not marker.exists()


async def test_readonly_leaves_even_a_stale_temporary_file_alone(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a")
    (root / ".orkestrel-0123456789abcdef.orkestrel-tmp").write_text("left by a killed write")
    before = sorted(os.listdir(root))
    assert (
        await run(open_workspace_tool(root, readonly=True), operation="read", path="a.txt") == "a"
    )
    assert sorted(os.listdir(root)) == before
    assert await run(open_workspace_tool(root, readonly=False), operation="list") != []
    assert sorted(os.listdir(root)) == ["a.txt"]
