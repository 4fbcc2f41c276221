"""`create_workspace_tool` driven through a real `ToolManager`: every operation, its exact result,
the no-active rules, option precedence, and failures.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest

from orkestrel.tool import ToolManager, ToolResult, create_tool_manager
from orkestrel.toolbox import ToolboxError, create_workspace_tool
from orkestrel.workspace import (
    BinaryContent,
    MemoryWorkspaceStore,
    WorkspaceError,
    WorkspaceManager,
    WorkspaceSnapshot,
    create_file,
    create_memory_workspace_store,
)
from workspace.samples import png

pytestmark = pytest.mark.anyio


class Session:
    """A `ToolManager` holding one workspace tool over `manager`, with numbered calls."""

    def __init__(self, manager: WorkspaceManager | None = None) -> None:
        self.manager = manager if manager is not None else WorkspaceManager()
        self.tools = ToolManager()
        self.tools.add(create_workspace_tool(manager=self.manager))
        self.calls = 0

    async def result(self, **arguments: Any) -> ToolResult:
        self.calls += 1
        call = {"id": f"c{self.calls}", "name": "workspace", "arguments": arguments}
        return await self.tools.execute(call)  # type: ignore[arg-type]

    async def value(self, **arguments: Any) -> Any:
        result = await self.result(**arguments)
        assert result["success"], result
        return result["value"]

    async def error(self, **arguments: Any) -> str:
        result = await self.result(**arguments)
        assert not result["success"], result
        return result["error"]


async def test_the_seed_pattern_a_write_then_a_read_through_a_plugged_store() -> None:
    store = create_memory_workspace_store()
    tool = create_workspace_tool(store=store)
    tools = create_tool_manager()
    tools.add(tool)
    await tools.execute(
        {
            "id": "w1",
            "name": "workspace",
            "arguments": {"operation": "write", "path": "notes.txt", "content": "hello"},
        }
    )
    read = await tools.execute(
        {"id": "w2", "name": "workspace", "arguments": {"operation": "read", "path": "notes.txt"}}
    )
    assert read == {"id": "w2", "name": "workspace", "success": True, "value": "hello"}


class Recording(MemoryWorkspaceStore):
    """A memory store that remembers every id it was asked to set."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: list[str] = []

    async def set(self, snapshot: WorkspaceSnapshot) -> None:
        self.saved.append(snapshot.id)
        await super().set(snapshot)


async def test_a_plugged_store_is_never_written_by_the_tool() -> None:
    store = Recording()
    session = Session()
    session.tools.add(create_workspace_tool(name="files", store=store))
    for operation in (
        {"operation": "write", "path": "a", "content": "x"},
        {"operation": "remove", "path": "a"},
    ):
        result = await session.tools.execute({"id": "1", "name": "files", "arguments": operation})
        assert result["success"]
    assert store.saved == []


async def test_reads_against_no_active_workspace_answer_empty_and_create_nothing() -> None:
    session = Session()
    assert await session.value(operation="read", path="a.txt") is None
    assert await session.value(operation="list") == []
    assert await session.value(operation="has", path="a.txt") is False
    assert await session.value(operation="search", query="a") == []
    assert await session.value(operation="workspaces") == []
    assert await session.value(operation="switch", id="ghost") == {"id": "ghost", "switched": False}
    assert session.manager.count == 0


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            {"operation": "write", "path": "a.txt", "content": "x"},
            {"path": "a.txt", "state": "created"},
        ),
        (
            {"operation": "prepend", "path": "a.txt", "content": "x"},
            {"path": "a.txt", "state": "created"},
        ),
        (
            {"operation": "append", "path": "a.txt", "content": "x"},
            {"path": "a.txt", "state": "created"},
        ),
        (
            {"operation": "replace", "query": "q", "replacement": "r"},
            {"occurrences": 0, "files": 0},
        ),
        ({"operation": "move", "from": "a", "to": "b"}, {"from": "a", "to": "b", "moved": False}),
        ({"operation": "remove", "path": "a"}, {"path": "a", "removed": False}),
    ],
)
async def test_a_writing_operation_with_no_active_workspace_creates_and_activates_one(
    arguments: dict[str, Any], expected: dict[str, Any]
) -> None:
    session = Session()
    assert await session.value(**arguments) == expected
    assert session.manager.count == 1
    active = session.manager.active
    assert active is not None
    assert await session.value(operation="workspaces") == [
        {"id": active.id, "files": active.count, "active": True}
    ]


async def test_every_edit_returns_the_path_and_the_new_state() -> None:
    session = Session()
    assert await session.value(operation="write", path="main.py", content="answer = 41") == {
        "path": "main.py",
        "state": "created",
    }
    splice = {"fromLine": 1, "fromColumn": 10, "toLine": 1, "toColumn": 12}
    assert await session.value(operation="splice", path="main.py", content="42", **splice) == {
        "path": "main.py",
        "state": "modified",
    }
    await session.value(operation="prepend", path="main.py", content="# top\n")
    await session.value(operation="append", path="main.py", content="\n# end")
    assert await session.value(operation="read", path="main.py") == "# top\nanswer = 42\n# end"
    assert await session.value(operation="has", path="main.py") is True
    assert await session.value(operation="move", **{"from": "main.py", "to": "app.py"}) == {
        "from": "main.py",
        "to": "app.py",
        "moved": True,
    }
    assert await session.value(operation="list") == [
        {"path": "app.py", "state": "modified", "size": 23, "lines": 3, "kind": "text"}
    ]
    assert await session.value(operation="remove", path="app.py") == {
        "path": "app.py",
        "removed": True,
    }
    assert await session.value(operation="list") == []


async def test_search_and_replace_pass_regex_sensitive_and_limit_through() -> None:
    session = Session()
    await session.value(operation="write", path="a.ts", content="const x = 1\nCONST y = 2")
    await session.value(operation="write", path="b.ts", content="let z = const")
    assert await session.value(operation="search", query="const") == [
        {"path": "a.ts", "line": 1, "column": 1, "length": 5, "content": "const x = 1"},
        {"path": "b.ts", "line": 1, "column": 9, "length": 5, "content": "let z = const"},
    ]
    found = await session.value(operation="search", query="const", sensitive=False, limit="2")
    assert [(hit["path"], hit["line"]) for hit in found] == [("a.ts", 1), ("a.ts", 2)]
    hits = await session.value(operation="search", query=r"^\w+ [a-z]", regex=True)
    assert [hit["line"] for hit in hits] == [1, 2, 1]
    assert await session.value(
        operation="replace", query="const", replacement="var", sensitive=False, limit=2
    ) == {"occurrences": 2, "files": 1}
    assert await session.value(operation="read", path="a.ts") == "var x = 1\nvar y = 2"
    assert await session.value(operation="replace", query=r"\d", replacement="$0", regex=True) == {
        "occurrences": 2,
        "files": 1,
    }
    assert await session.value(operation="read", path="a.ts") == "var x = $0\nvar y = $0"


async def test_workspaces_lists_the_registry_and_switch_repoints_every_arm() -> None:
    manager = WorkspaceManager()
    manager.add("first").write("a.txt", "one")
    manager.add("second").write({"b.txt": "two", "c.txt": "three"})
    session = Session(manager)
    assert await session.value(operation="workspaces") == [
        {"id": "first", "files": 1, "active": True},
        {"id": "second", "files": 2, "active": False},
    ]
    assert await session.value(operation="switch", id="second") == {
        "id": "second",
        "switched": True,
        "files": 2,
    }
    assert await session.value(operation="read", path="b.txt") == "two"
    assert await session.value(operation="read", path="a.txt") is None
    assert await session.value(operation="switch", id="ghost") == {"id": "ghost", "switched": False}
    assert manager.active is manager.workspace("second")


async def test_binary_files_list_as_binary_and_refuse_text_operations() -> None:
    icon = create_file("icon.png", BinaryContent(base64.b64encode(png()).decode(), "image/png"))
    manager = WorkspaceManager()
    manager.add("w", [icon])
    session = Session(manager)
    assert await session.value(operation="list") == [
        {"path": "icon.png", "state": "created", "size": len(png()), "lines": 0, "kind": "binary"}
    ]
    assert await session.value(operation="read", path="icon.png") is None
    for operation in ("prepend", "append"):
        message = await session.error(operation=operation, path="icon.png", content="x")
        assert message == f"Cannot {operation} text to a binary file: icon.png"
    span = {"fromLine": 1, "fromColumn": 1, "toLine": 1, "toColumn": 2}
    message = await session.error(operation="splice", path="icon.png", content="x", **span)
    assert message == "Cannot splice a range of a binary file: icon.png"


async def test_workspace_errors_propagate_unwrapped() -> None:
    tool = create_workspace_tool()
    await tool.execute({"operation": "write", "path": "a.txt", "content": "abc"})
    span = {"fromLine": 1, "fromColumn": 3, "toLine": 1, "toColumn": 2}
    cases = [
        ({"operation": "splice", "path": "a.txt", "content": "x", **span}, "RANGE"),
        ({"operation": "splice", "path": "nope", "content": "x", **span}, "MODALITY"),
        ({"operation": "search", "query": "(?<=a)b", "regex": True}, "PATTERN"),
        ({"operation": "replace", "query": "(", "replacement": "", "regex": True}, "PATTERN"),
    ]
    for arguments, code in cases:
        with pytest.raises(WorkspaceError) as error:
            await tool.execute(arguments)
        assert error.value.code == code


async def test_malformed_calls_are_tool_errors_that_name_the_problem() -> None:
    tool = create_workspace_tool()
    hostile: list[Any] = [
        {},
        {"operation": "explode"},
        {"operation": "write", "path": "a.txt"},
        {"operation": "splice", "path": "a", "content": "x", "fromLine": 0, "fromColumn": 1},
        {"operation": "search", "query": "a", "limit": 0},
        {"operation": "read", "path": ["a"]},
        ["operation", "read"],
    ]
    for arguments in hostile:
        with pytest.raises(ToolboxError, match=r"^malformed workspace call: ") as error:
            await tool.execute(arguments)
        assert error.value.code == "TOOL"
        assert error.value.context is not None
        assert "operation" in error.value.context
    session = Session()
    message = await session.error(operation="splice", path="a", content="x", fromLine=0)
    assert message.startswith("malformed workspace call: splice: fromLine: min 1")
    message = await session.error(operation="explode")
    assert "operation must be one of read, list, has, search, replace, write, splice" in message


class RaisingCall(dict[str, Any]):
    """Stores a call and raises from every method a reader could use."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem")

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError("get")


class LyingCall(dict[str, Any]):
    """Stores one operation and names another to every read through its methods."""

    def __getitem__(self, key: str) -> Any:
        return "write" if key == "operation" else super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (runs the lie)


async def test_a_dict_subclass_is_read_from_its_storage_never_through_its_methods() -> None:
    tool = create_workspace_tool()
    await tool.execute({"operation": "write", "path": "a.txt", "content": "hi"})
    plain = await tool.execute({"operation": "read", "path": "a.txt"})
    assert await tool.execute(RaisingCall(operation="read", path="a.txt")) == plain
    with pytest.raises(ToolboxError, match=r"^malformed workspace call: read: path"):
        await tool.execute(RaisingCall(operation="read"))
    # Read from storage, the call is a read, which takes no content (a write would).
    with pytest.raises(
        ToolboxError, match=r'^malformed workspace call: read: "content" is an argument of write'
    ):
        await tool.execute(LyingCall(operation="read", path="a.txt", content="gone"))
    assert await tool.execute(LyingCall(operation="read", path="a.txt")) == plain
    assert await tool.execute({"operation": "read", "path": "a.txt"}) == plain


async def test_deeply_nested_and_huge_arguments_fail_or_succeed_without_harm() -> None:
    session = Session()
    deep: Any = "x"
    for _ in range(100_000):
        deep = {"d": deep}
    assert (await session.error(operation="write", path="a", content=deep)).startswith(
        "malformed workspace call: write: "
    )
    big = "é" * 5_000_000
    refused = await session.error(operation="write", path="big.txt", content=big, more={"x": 1})
    assert refused == (
        'malformed workspace call: write: unknown argument "more" (known: operation, path, content)'
    )
    assert await session.value(operation="write", path="big.txt", content=big)
    assert await session.value(operation="has", path="big.txt") is True


async def test_manager_wins_over_store_and_edits_are_never_saved_by_the_tool() -> None:
    ignored = MemoryWorkspaceStore()
    manager = WorkspaceManager(MemoryWorkspaceStore())
    tool = create_workspace_tool(manager=manager, store=ignored)
    await tool.execute({"operation": "write", "path": "a.txt", "content": "x"})
    active = manager.active
    assert active is not None
    assert active.read("a.txt") == "x"
    assert await ignored.get(active.id) is None
    assert await manager.save(active.id) is True


async def test_a_batch_of_edits_on_one_workspace_loses_nothing() -> None:
    session = Session()
    calls = [
        {
            "id": str(index),
            "name": "workspace",
            "arguments": {"operation": "append", "path": "log.txt", "content": f"{index};"},
        }
        for index in range(50)
    ]
    results = await session.tools.execute(calls)  # type: ignore[arg-type]
    assert all(result["success"] for result in results)
    text = await session.value(operation="read", path="log.txt")
    assert sorted(text.rstrip(";").split(";"), key=int) == [str(index) for index in range(50)]
