"""The options of `create_workspace_tool` and the operations its handler accepts."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from orkestrel.workspace import WorkspaceManagerInterface, WorkspaceStoreInterface


class WorkspaceToolOptions(TypedDict):
    """Represents the options of `create_workspace_tool`: a manager to drive, or a store to build
    a fresh manager over; with neither, a manager over an in-memory store.
    """

    name: NotRequired[str]
    description: NotRequired[str]
    manager: NotRequired[WorkspaceManagerInterface]
    store: NotRequired[WorkspaceStoreInterface]
    read_lines: NotRequired[int]
    read_chars: NotRequired[int]
    search_matches: NotRequired[int]


class _Path(TypedDict):
    path: str


class _Content(_Path):
    content: str


class _Matching(TypedDict):
    query: str
    regex: NotRequired[bool]
    sensitive: NotRequired[bool]
    limit: NotRequired[int]


class ReadOperation(_Path):
    """Represents `read`: a window of one file's lines, from `offset` (from 1), at most `limit`."""

    operation: Literal["read"]
    offset: NotRequired[int]
    limit: NotRequired[int]


class ListOperation(TypedDict):
    """Represents `list`: every file with its metadata."""

    operation: Literal["list"]


class HasOperation(_Path):
    """Represents `has`: whether a file exists."""

    operation: Literal["has"]


class SearchOperation(_Matching):
    """Represents `search`: matches of a query, line by line."""

    operation: Literal["search"]


class ReplaceOperation(_Matching):
    """Represents `replace`: matches of a query replaced in every text file."""

    operation: Literal["replace"]
    replacement: str


class WriteOperation(_Content):
    """Represents `write`: a file's whole text."""

    operation: Literal["write"]


class SpliceOperation(_Content):
    """Represents `splice`: a half-open span of an existing file replaced."""

    operation: Literal["splice"]
    fromLine: int
    fromColumn: int
    toLine: int
    toColumn: int


class PrependOperation(_Content):
    """Represents `prepend`: text put before a file's text."""

    operation: Literal["prepend"]


class AppendOperation(_Content):
    """Represents `append`: text put after a file's text."""

    operation: Literal["append"]


MoveOperation = TypedDict("MoveOperation", {"operation": Literal["move"], "from": str, "to": str})
"""Represents `move`: a file renamed."""


class RemoveOperation(_Path):
    """Represents `remove`: a file deleted."""

    operation: Literal["remove"]


class WorkspacesOperation(TypedDict):
    """Represents `workspaces`: every workspace and which one is active."""

    operation: Literal["workspaces"]


class SwitchOperation(TypedDict):
    """Represents `switch`: another workspace made active."""

    operation: Literal["switch"]
    id: str


WorkspaceOperation = (
    ReadOperation
    | ListOperation
    | HasOperation
    | SearchOperation
    | ReplaceOperation
    | WriteOperation
    | SpliceOperation
    | PrependOperation
    | AppendOperation
    | MoveOperation
    | RemoveOperation
    | WorkspacesOperation
    | SwitchOperation
)
"""Represents one operation a model sends the workspace tool, tagged by its `operation` field."""
