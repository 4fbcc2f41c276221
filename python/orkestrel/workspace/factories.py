"""The constructor-free way to build file values, workspaces, managers and stores."""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike

from orkestrel.database import DriverInterface, create_database
from orkestrel.workspace.constants import DIRECTORY_FILE_LIMIT, DIRECTORY_IGNORE
from orkestrel.workspace.manager import WorkspaceManager
from orkestrel.workspace.stores.database import (
    WORKSPACES_COLUMNS,
    WORKSPACES_TABLE,
    DatabaseWorkspaceStore,
)
from orkestrel.workspace.stores.directory import DirectoryWorkspaceStore
from orkestrel.workspace.stores.memory import MemoryWorkspaceStore
from orkestrel.workspace.types import (
    File,
    WorkspaceInterface,
    WorkspaceManagerInterface,
    WorkspaceStoreInterface,
)
from orkestrel.workspace.values import create_binary_content, create_file, create_text_content
from orkestrel.workspace.workspace import Workspace

__all__ = [
    "create_binary_content",
    "create_database_workspace_store",
    "create_directory_workspace_store",
    "create_file",
    "create_memory_workspace_store",
    "create_text_content",
    "create_workspace",
    "create_workspace_manager",
]


def create_workspace(
    id: str | None = None, seed: Iterable[File] | None = None, *, limit: int | None = None
) -> WorkspaceInterface:
    """Creates a workspace, its id minted when absent, holding the seed files by path."""
    return Workspace(id, seed, limit=limit)


def create_workspace_manager(
    store: WorkspaceStoreInterface | None = None, *, limit: int | None = None
) -> WorkspaceManagerInterface:
    """Creates an empty workspace registry, durable through `store` when one is given."""
    return WorkspaceManager(store, limit=limit)


def create_memory_workspace_store() -> WorkspaceStoreInterface:
    """Creates a snapshot store that lives as long as the process."""
    return MemoryWorkspaceStore()


def create_database_workspace_store(
    driver: DriverInterface | None = None,
) -> DatabaseWorkspaceStore:
    """Creates a snapshot store over one table of the database layer, in memory unless a driver
    (a SQLite file, PostgreSQL) is given.
    """
    database = create_database(tables={WORKSPACES_TABLE: WORKSPACES_COLUMNS}, driver=driver)
    return DatabaseWorkspaceStore(database.table(WORKSPACES_TABLE), database)


def create_directory_workspace_store(
    root: str | PathLike[str],
    *,
    limit: int = DIRECTORY_FILE_LIMIT,
    ignore: Iterable[str] = DIRECTORY_IGNORE,
    clean: bool = True,
) -> WorkspaceStoreInterface:
    """Creates a store that keeps each workspace as real files in a folder under `root`."""
    return DirectoryWorkspaceStore(root, limit=limit, ignore=ignore, clean=clean)
