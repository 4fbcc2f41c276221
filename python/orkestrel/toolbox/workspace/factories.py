"""`create_workspace_tool`: one LLM-callable tool over a workspace manager's active workspace."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from orkestrel.tool import ToolInterface, create_tool
from orkestrel.toolbox.helpers import named_text
from orkestrel.toolbox.hints import WRITES
from orkestrel.toolbox.operation_contract import OperationContract
from orkestrel.toolbox.workspace.constants import (
    WORKSPACE_READ_CHARS,
    WORKSPACE_READ_LINES,
    WORKSPACE_SEARCH_MATCHES,
    WORKSPACE_TOOL_NAME,
    WORKSPACE_TOOL_SUMMARY,
    workspace_description,
)
from orkestrel.toolbox.workspace.content_read import ContentRead
from orkestrel.toolbox.workspace.helpers import read_window, search_window
from orkestrel.toolbox.workspace.shapes import workspace_tool_shape
from orkestrel.workspace import (
    MemoryWorkspaceStore,
    WorkspaceInterface,
    WorkspaceManager,
    WorkspaceManagerInterface,
    WorkspaceStoreInterface,
    is_binary,
    is_text,
    range_of,
)

Call = dict[str, Any]
Handler = Callable[[WorkspaceManagerInterface, Call], Any]

_OPTIONS = ("regex", "sensitive", "limit")


def _options(call: Call) -> dict[str, Any]:
    return {key: call[key] for key in _OPTIONS if key in call}


def _editable(manager: WorkspaceManagerInterface) -> WorkspaceInterface:
    return manager.active or manager.add()


def _state(workspace: WorkspaceInterface, path: str) -> dict[str, Any]:
    file = workspace.file(path)
    return {"path": path, "state": None if file is None else file.state}


def _edit(edit: Callable[[WorkspaceInterface, Call], object]) -> Handler:
    def run(manager: WorkspaceManagerInterface, call: Call) -> dict[str, Any]:
        workspace = _editable(manager)
        edit(workspace, call)
        return _state(workspace, call["path"])

    return run


def _workspaces(manager: WorkspaceManagerInterface, call: Call) -> list[dict[str, Any]]:
    active = manager.active
    return [
        {"id": space.id, "files": space.count, "active": space is active}
        for space in manager.workspaces()
    ]


def _switch(manager: WorkspaceManagerInterface, call: Call) -> dict[str, Any]:
    workspace = manager.switch(call["id"])
    if workspace is None:
        return {"id": call["id"], "switched": False}
    return {"id": workspace.id, "switched": True, "files": workspace.count}


def _list(manager: WorkspaceManagerInterface, call: Call) -> list[dict[str, Any]]:
    workspace = manager.active
    files = [] if workspace is None else workspace.files()
    return [
        {
            "path": file.path,
            "state": file.state,
            "size": file.size,
            "lines": file.lines,
            "kind": "text" if is_text(file.content) else "binary",
        }
        for file in files
    ]


def _image(manager: WorkspaceManagerInterface, call: Call) -> dict[str, str] | None:
    """`{"mime", "data"}` (base64) of the image at the call's path, or `None` for no image."""
    file = None if manager.active is None else manager.active.file(call["path"])
    if file is None or not is_binary(file.content):
        return None
    return {"mime": file.content.mime, "data": file.content.data}


def _replace(manager: WorkspaceManagerInterface, call: Call) -> dict[str, int]:
    result = _editable(manager).replace(call["query"], call["replacement"], **_options(call))
    return {"occurrences": result.occurrences, "files": result.files}


def _move(manager: WorkspaceManagerInterface, call: Call) -> dict[str, Any]:
    moved = _editable(manager).move(call["from"], call["to"])
    return {"from": call["from"], "to": call["to"], "moved": moved}


def _remove(manager: WorkspaceManagerInterface, call: Call) -> dict[str, Any]:
    return {"path": call["path"], "removed": _editable(manager).remove(call["path"])}


def _splice(workspace: WorkspaceInterface, call: Call) -> None:
    span = range_of(call["fromLine"], call["fromColumn"], call["toLine"], call["toColumn"])
    workspace.write(call["path"], call["content"], span)


_HANDLERS: Mapping[str, Handler] = {
    "workspaces": _workspaces,
    "switch": _switch,
    "list": _list,
    "has": lambda manager, call: manager.active is not None and manager.active.has(call["path"]),
    "replace": _replace,
    "write": _edit(lambda space, call: space.write(call["path"], call["content"])),
    "splice": _edit(_splice),
    "prepend": _edit(lambda space, call: space.prepend(call["path"], call["content"])),
    "append": _edit(lambda space, call: space.append(call["path"], call["content"])),
    "move": _move,
    "remove": _remove,
}


def create_workspace_tool(
    *,
    name: str | None = None,
    description: str | None = None,
    manager: WorkspaceManagerInterface | None = None,
    store: WorkspaceStoreInterface | None = None,
    read_lines: int = WORKSPACE_READ_LINES,
    read_chars: int = WORKSPACE_READ_CHARS,
    search_matches: int = WORKSPACE_SEARCH_MATCHES,
) -> ToolInterface:
    """Builds an LLM-callable workspace-editing tool that advertises `workspace_tool_shape` as its
    parameters and runs each parsed operation against the manager's active workspace.

    `manager` is driven directly and wins over `store`, which backs a fresh manager's `open` and
    `save`; with neither, the manager keeps its snapshots in memory. Edits are never saved by the
    tool: durability is the caller's `save`. A writing operation with no active workspace creates
    and activates one; a reading one answers empty. A malformed call raises `ToolboxError`
    (`TOOL`); a refused edit raises the workspace's own `WorkspaceError`.

    One `read` answers at most `read_lines` lines and `read_chars` characters; a cut answer ends
    with a `[truncated: ...; read on with offset N]` line (see `read_window`). One `search`
    answers at most `search_matches` matches and `read_chars` characters of matched lines; a cut
    one is `{matches, truncated: true, note}` (see `search_window`).
    """
    target = manager if manager is not None else WorkspaceManager(store or MemoryWorkspaceStore())
    label = name if name is not None else WORKSPACE_TOOL_NAME
    contract = OperationContract(workspace_tool_shape, label=label)

    def _read(manager: WorkspaceManagerInterface, call: Call) -> str | None:
        text = None if manager.active is None else manager.active.read(call["path"])
        if text is None:
            return None
        limit = min(call.get("limit") or read_lines, read_lines)
        return read_window(text, call.get("offset") or 1, limit, read_chars)

    def _search(manager: WorkspaceManagerInterface, call: Call) -> Any:
        workspace = manager.active
        if workspace is None:
            return []
        limit = min(call.get("limit") or search_matches, search_matches)
        probe = limit + 1 if limit == search_matches else limit
        options = {**_options(call), "limit": probe}
        return search_window(workspace.search(call["query"], **options), limit, read_chars)

    async def execute(args: Mapping[str, Any], caller: Any = None) -> Any:
        call: Call = contract.parse(args)
        if call["operation"] == "read":
            image = _image(target, call) if isinstance(caller, ContentRead) else None
            return image if image is not None else _read(target, call)
        if call["operation"] == "search":
            return _search(target, call)
        return _HANDLERS[call["operation"]](target, call)

    return create_tool(
        name=label,
        description=description
        if description is not None
        else named_text(
            workspace_description(read_lines, read_chars, search_matches),
            WORKSPACE_TOOL_NAME,
            label,
        ),
        summary=named_text(WORKSPACE_TOOL_SUMMARY, WORKSPACE_TOOL_NAME, label),
        parameters=contract.parameters,
        operations=contract.schemas(),
        annotations={**WRITES, "title": "Workspace files"},
        execute=execute,
    )
