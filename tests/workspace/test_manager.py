"""`WorkspaceManager` and `MemoryWorkspaceStore`: registry, selection, open and save."""

from __future__ import annotations

import pytest

from orkestrel.workspace import (
    MemoryWorkspaceStore,
    WorkspaceManager,
    create_memory_workspace_store,
    create_workspace_manager,
)

pytestmark = pytest.mark.anyio


def test_the_first_add_is_active_and_later_adds_do_not_steal_it() -> None:
    manager = WorkspaceManager()
    scratch = manager.add("scratch")
    review = manager.add("review")
    assert (manager.count, manager.active, manager.workspace("review")) == (2, scratch, review)
    assert manager.workspaces() == [scratch, review]
    assert manager.switch("review") is review
    assert manager.active is review
    assert manager.switch("ghost") is None
    assert manager.active is review


def test_adding_an_existing_id_replaces_it_and_active_follows() -> None:
    manager = WorkspaceManager()
    first = manager.add("w")
    first.write("a", "1")
    second = manager.add("w")
    assert manager.count == 1
    assert manager.active is second
    assert second.count == 0


def test_remove_and_clear_drop_the_selection_with_the_workspace() -> None:
    manager = WorkspaceManager()
    manager.add("a")
    manager.add("b")
    assert manager.remove("a") is True
    assert manager.active is None
    assert manager.remove(["ghost", "b"]) is True
    assert manager.count == 0
    assert manager.remove("a") is False
    manager.add("c")
    manager.clear()
    assert (manager.count, manager.active) == (0, None)


async def test_save_and_open_round_trip_through_a_store() -> None:
    store = create_memory_workspace_store()
    manager = create_workspace_manager(store)
    project = manager.add("project")
    project.write("src/main.py", "answer = 42")
    assert await store.get("project") is None, "edits are not saved until save()"
    assert await manager.save("project") is True
    assert await manager.save("ghost") is False
    reader = WorkspaceManager(store)
    reader.add("other")
    opened = await reader.open("project")
    assert opened is not None
    assert reader.active is opened
    assert opened.read("src/main.py") == "answer = 42"
    assert opened.snapshot() == project.snapshot()
    assert await reader.open("never") is None


async def test_open_prefers_the_registry_and_save_needs_a_store() -> None:
    store = MemoryWorkspaceStore()
    manager = WorkspaceManager(store)
    live = manager.add("w")
    live.write("a", "live")
    other = manager.add("x")
    await store.set(other.snapshot())
    manager.switch("x")
    assert await manager.open("w") is live
    assert manager.active is live
    assert await WorkspaceManager().save("w") is False
    assert await WorkspaceManager().open("w") is None


async def test_removing_a_workspace_keeps_its_snapshot_and_delete_drops_it() -> None:
    store = MemoryWorkspaceStore()
    manager = WorkspaceManager(store)
    manager.add("w").write("a", "1")
    await manager.save("w")
    manager.remove("w")
    assert await store.get("w") is not None
    await store.delete("w")
    await store.delete("w")
    assert await store.get("w") is None
