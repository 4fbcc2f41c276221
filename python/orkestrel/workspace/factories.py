"""The constructor-free way to build file values, workspaces, managers and stores."""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from typing import TYPE_CHECKING

from orkestrel.workspace.constants import DIRECTORY_FILE_LIMIT, DIRECTORY_IGNORE
from orkestrel.workspace.helpers import compute_size, count_lines
from orkestrel.workspace.types import (
    BinaryContent,
    BinaryMIME,
    File,
    FileContent,
    FileState,
    TextContent,
    WorkspaceInterface,
    WorkspaceManagerInterface,
    WorkspaceStoreInterface,
)

if TYPE_CHECKING:
    from orkestrel.database import DriverInterface
    from orkestrel.workspace.stores.database import DatabaseWorkspaceStore


def create_file(path: str, content: FileContent, state: FileState = "created") -> File:
    """Builds an immutable file value, deriving its byte size and line count from the content."""
    return File(path, content, state, compute_size(content), count_lines(content))


def create_text_content(text: str, language: str) -> TextContent:
    """Builds the text arm of file content from the text and its language tag."""
    return TextContent(text, language)


def create_binary_content(data: str, mime: BinaryMIME) -> BinaryContent:
    """Builds the binary arm of file content from base64 text and an image MIME type."""
    return BinaryContent(data, mime)


def create_workspace(
    id: str | None = None, seed: Iterable[File] | None = None, *, limit: int | None = None
) -> WorkspaceInterface:
    """Creates a workspace, its id minted when absent, holding the seed files by path."""
    from orkestrel.workspace.workspace import Workspace

    return Workspace(id, seed, limit=limit)


def create_workspace_manager(
    store: WorkspaceStoreInterface | None = None, *, limit: int | None = None
) -> WorkspaceManagerInterface:
    """Creates an empty workspace registry, durable through `store` when one is given."""
    from orkestrel.workspace.manager import WorkspaceManager

    return WorkspaceManager(store, limit=limit)


def create_memory_workspace_store() -> WorkspaceStoreInterface:
    """Creates a snapshot store that lives as long as the process."""
    from orkestrel.workspace.stores.memory import MemoryWorkspaceStore

    return MemoryWorkspaceStore()


def create_database_workspace_store(
    driver: DriverInterface | None = None,
) -> DatabaseWorkspaceStore:
    """Creates a snapshot store over one table of the database layer, in memory unless a driver
    (a SQLite file, PostgreSQL) is given.
    """
    from orkestrel.database import create_database
    from orkestrel.workspace.stores.database import (
        WORKSPACES_COLUMNS,
        WORKSPACES_TABLE,
        DatabaseWorkspaceStore,
    )

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
    from orkestrel.workspace.stores.directory import DirectoryWorkspaceStore

    return DirectoryWorkspaceStore(root, limit=limit, ignore=ignore, clean=clean)
