"""An agent editing a real project folder: the workspace tool over a directory store's workspace,
with the host deciding when edits reach the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orkestrel.tool import ToolManager
from orkestrel.toolbox import create_workspace_tool
from orkestrel.workspace import DirectoryWorkspaceStore, WorkspaceManager, WorkspaceStoreError
from workspace.samples import png, tree

pytestmark = pytest.mark.anyio


async def call(tools: ToolManager, **arguments: Any) -> Any:
    result = await tools.execute({"id": "1", "name": "workspace", "arguments": arguments})
    return result["value"] if result["success"] else result["error"]


async def test_an_agent_edits_a_project_folder_and_the_host_saves_it(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "app.py").write_text("def main():\n    return 41\n")
    (folder / "logo.png").write_bytes(png())
    manager = WorkspaceManager(DirectoryWorkspaceStore(tmp_path))
    assert await manager.open("project") is not None
    tools = ToolManager()
    tools.add(create_workspace_tool(manager=manager))

    listing = await call(tools, operation="list")
    assert [(entry["path"], entry["kind"]) for entry in listing] == [
        ("logo.png", "binary"),
        ("src/app.py", "text"),
    ]
    assert await call(tools, operation="read", path="logo.png") is None
    assert await call(tools, operation="append", path="logo.png", content="x") == (
        "Cannot append text to a binary file: logo.png"
    )
    hits = await call(tools, operation="search", query=r"return \d+", regex=True)
    assert hits == [
        {"path": "src/app.py", "line": 2, "column": 5, "length": 9, "content": "    return 41"}
    ]
    span = {"fromLine": 2, "fromColumn": 12, "toLine": 2, "toColumn": 14}
    await call(tools, operation="splice", path="src/app.py", content="42", **span)
    await call(tools, operation="write", path="../outside.txt", content="escape")
    await call(tools, operation="write", path="README.md", content="# Project\n")
    assert (folder / "src" / "app.py").read_text() == "def main():\n    return 41\n"

    before = tree(tmp_path)
    with pytest.raises(WorkspaceStoreError, match="relative and normalized") as error:
        await manager.save("project")
    assert error.value.code == "PATH"
    assert tree(tmp_path) == before

    assert await call(tools, operation="remove", path="../outside.txt") == {
        "path": "../outside.txt",
        "removed": True,
    }
    assert await manager.save("project") is True
    assert (folder / "src" / "app.py").read_text() == "def main():\n    return 42\n"
    assert (folder / "README.md").read_text() == "# Project\n"
    assert (folder / "logo.png").read_bytes() == png()
    assert not (tmp_path / "outside.txt").exists()
