"""The served workspace tool: the workspace tool over the folder `--root`, saved after every
change, read-only on request."""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from orkestrel.cli.guards import changes_state
from orkestrel.cli.hints import annotate
from orkestrel.cli.readonly_store import ReadonlyWorkspaceStore
from orkestrel.database import create_database
from orkestrel.tool import ToolInterface
from orkestrel.toolbox import (
    WORKSPACE_READ_CHARS,
    WORKSPACE_READ_LINES,
    WORKSPACE_SEARCH_MATCHES,
    create_workspace_tool,
)
from orkestrel.toolbox.hints import READS_STATE, WRITES
from orkestrel.toolbox.workspace.content_read import ContentRead
from orkestrel.workspace import (
    DIRECTORY_FILE_LIMIT,
    DIRECTORY_IGNORE,
    DirectoryWorkspaceStore,
    WorkspaceManager,
    WorkspaceStoreError,
    WorkspaceStoreInterface,
)
from orkestrel.workspace.stores.database import (
    WORKSPACES_COLUMNS,
    WORKSPACES_TABLE,
    DatabaseWorkspaceStore,
)
from orkestrel.workspace.stores.files import to_file

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState

WORKSPACE_MUTATIONS = frozenset(
    {"replace", "write", "splice", "prepend", "append", "move", "remove"}
)
"""The workspace tool's operations that change files, refused under `--readonly`."""


@dataclass(frozen=True, slots=True)
class WorkspaceCaps:
    """Represents the caps on what one workspace call answers: the lines and characters of a
    `read` (`--workspace-read-lines`, `--workspace-read-chars`, the latter also bounding the
    matched lines of a `search`) and the matches of a `search` (`--workspace-search-matches`)."""

    read_lines: int = WORKSPACE_READ_LINES
    read_chars: int = WORKSPACE_READ_CHARS
    search_matches: int = WORKSPACE_SEARCH_MATCHES


def open_workspace_tool(
    root: Path, readonly: bool, data: Path | None = None, caps: WorkspaceCaps | None = None
) -> ToolInterface:
    """Builds the workspace tool over the files of the folder `root`, answering within `caps`
    (the tool's defaults when not given).

    When the toolbox's `data` folder lies inside `root`, the top folder holding it is hidden from
    the workspace (never read, written or deleted), so an agent cannot touch the toolbox's own
    state through its files.

    The folder is read on the first call. A `read` of a path the folder refuses (leading out of
    it, through an ignored name, to a file over the limit) raises the folder's refusal, naming
    the path, where the tool alone answers `None` as for a missing file. Every change is saved
    to disk before the call answers; a change the disk refuses (a path leading out of the
    folder, an ignored name, a file over the limit, a file changed by someone else) is undone in
    memory too, so the workspace never holds what the folder does not. Calls run one at a time.
    """
    real = root.resolve()
    if real.parent == real:
        raise ValueError("--root cannot be the filesystem root")
    directory = DirectoryWorkspaceStore(
        real.parent,
        limit=DIRECTORY_FILE_LIMIT,
        ignore=DIRECTORY_IGNORE | _hidden(real, data),
        clean=not readonly,
    )
    store: WorkspaceStoreInterface = ReadonlyWorkspaceStore(directory) if readonly else directory
    manager = WorkspaceManager(store, limit=DIRECTORY_FILE_LIMIT)
    inner = create_workspace_tool(manager=manager, **asdict(caps or WorkspaceCaps()))
    lock = anyio.Lock()

    async def execute(args: Mapping[str, Any], caller: Any = None) -> Any:
        changes = changes_state(args, WORKSPACE_MUTATIONS, readonly)
        async with lock:
            if manager.workspace(real.name) is None and await manager.open(real.name) is None:
                manager.add(real.name)
            if not changes:
                value = await inner.execute(args, caller)
                if isinstance(caller, ContentRead):
                    value = await _with_others(directory, real.name, args, value)
                if value is None and args.get("operation") == "read":
                    # The seed's read answers null for any absent file; the folder says why a
                    # path it refuses (outside it, ignored, over the limit) is absent.
                    await directory.read(real.name, str(args["path"]))
                return value
            workspace = manager.workspace(real.name)
            before = None if workspace is None else workspace.snapshot()
            try:
                value = await inner.execute(args)
                await manager.save(real.name)
            except BaseException:
                manager.add(real.name, () if before is None else before.files)
                raise
            return value

    return annotate(inner, READS_STATE if readonly else WRITES, execute)


async def _with_others(
    directory: DirectoryWorkspaceStore, id: str, args: Mapping[str, Any], value: Any
) -> Any:
    """What an in-process `ContentRead` caller gets beyond the tool's own answer: a `read` of a
    file the workspace leaves out for its content (neither UTF-8 text nor an image) answers its
    bytes as `{mime, data}`, and a `list` adds such files as `{path, size, kind, mime}`; the
    store's refusals (a path out of the folder or into an ignored name, a file over the limit)
    leave the tool's answer as it was."""
    operation = args.get("operation")
    if operation == "list" and isinstance(value, list):
        others = [
            {"path": path, "size": size, "kind": "binary", "mime": binary_mime(path)}
            for path, size in await directory.others(id)
        ]
        return sorted([*value, *others], key=lambda entry: str(entry["path"]).split("/"))
    path = args.get("path")
    if operation != "read" or value is not None or not isinstance(path, str):
        return value
    try:
        data = await directory.read_bytes(id, path)
    except WorkspaceStoreError:
        return value
    if data is None or to_file(path, data) is not None:
        return value
    return {"mime": binary_mime(path), "data": base64.b64encode(data).decode("ascii")}


def binary_mime(path: str) -> str:
    """The MIME type a binary file's name suggests, else `application/octet-stream`."""
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def _hidden(root: Path, data: Path | None) -> frozenset[str]:
    if data is None:
        return frozenset()
    try:
        inside = data.resolve().relative_to(root)
    except ValueError:
        return frozenset()
    return frozenset(inside.parts[:1])


def open_shared_workspace_tool(
    root: Path, readonly: bool, shared: SharedState, caps: WorkspaceCaps | None = None
) -> ToolInterface:
    """Builds the workspace tool over the workspace the `--database` PostgreSQL keeps under the
    name of the folder `root`, shared by every server pointed at it, answering within `caps`.

    Each call reads the stored workspace afresh, so it sees what any server saved. A change
    runs under an advisory lock on that workspace, held across every server, from the read to
    the save, so two servers never overwrite each other's change; a change that fails saves
    nothing.
    """
    name = root.resolve().name or "workspace"
    engine = create_database(
        tables={WORKSPACES_TABLE: WORKSPACES_COLUMNS}, driver=shared.driver(), readonly=readonly
    )
    store = DatabaseWorkspaceStore(engine.table(WORKSPACES_TABLE), engine)
    manager = WorkspaceManager(store, limit=DIRECTORY_FILE_LIMIT)
    inner = create_workspace_tool(manager=manager, **asdict(caps or WorkspaceCaps()))
    lock = anyio.Lock()

    async def fresh() -> None:
        manager.remove(name)
        if await manager.open(name) is None:
            manager.add(name)

    async def execute(args: Mapping[str, Any], caller: Any = None) -> Any:
        changes = changes_state(args, WORKSPACE_MUTATIONS, readonly)
        async with lock:
            if not changes:
                await fresh()
                return await inner.execute(args, caller)
            async with shared.exclusive(f"orkestrel.workspace:{name}"):
                await fresh()
                value = await inner.execute(args)
                await manager.save(name)
                return value

    return annotate(inner, READS_STATE if readonly else WRITES, execute)
