"""`DatabaseWorkspaceStore`: snapshots kept as rows of one table of the database layer."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from orkestrel.database import Column
from orkestrel.database.row_store import RowStore
from orkestrel.workspace.errors import WorkspaceStoreError
from orkestrel.workspace.helpers import is_utf8, snapshot_to_record
from orkestrel.workspace.types import WorkspaceSnapshot
from orkestrel.workspace.validators import parse_snapshot

WORKSPACES_TABLE = "workspaces"
"""Names the table a database workspace store built by its factory keeps snapshots in."""

WORKSPACES_COLUMNS: dict[str, Column] = {"id": Column("string"), "snapshot": Column("json")}
"""Declares the workspaces table: the workspace id, and its snapshot as one JSON cell."""


def _cell_safe(text: str) -> bool:
    return "\x00" not in text and is_utf8(text)


def _encode(text: str) -> str:
    return base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")


def _decode(data: object) -> str | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode(data, validate=True).decode("utf-8", "surrogatepass")
    except (binascii.Error, ValueError):
        return None


def _pack(record: dict[str, Any]) -> dict[str, Any]:
    """Rewrites each path or text a JSON cell cannot hold (a NUL character, a lone surrogate)
    as base64 of its UTF-8 bytes under `path64` / `text64`.
    """
    for file in record["files"]:
        if not _cell_safe(file["path"]):
            file["path64"] = _encode(file.pop("path"))
        content = file["content"]
        if "text" in content and not _cell_safe(content["text"]):
            content["text64"] = _encode(content.pop("text"))
    return record


def _unpack(value: object) -> object:
    """Undoes `_pack`, leaving anything unexpected for `parse_snapshot` to refuse."""
    if not isinstance(value, dict) or not isinstance(value.get("files"), list):
        return value
    files = []
    for file in value["files"]:
        if isinstance(file, dict):
            file = dict(file)
            if "path64" in file:
                file["path"] = _decode(file.pop("path64"))
            content = file.get("content")
            if isinstance(content, dict) and "text64" in content:
                content = dict(content)
                content["text"] = _decode(content.pop("text64"))
                file["content"] = content
        files.append(file)
    return {**value, "files": files}


class DatabaseWorkspaceStore(RowStore):
    """Keeps each snapshot as a row `{id, snapshot}` of one table of the database layer.

    How durable it is belongs to the driver: SQLite in memory by default, a SQLite file or
    PostgreSQL when given. The snapshot cell is the snapshot's record, with any path or text a
    JSON cell cannot hold (a NUL character, a lone surrogate) stored as base64 under `path64` /
    `text64`; a row whose cell is not a well-formed snapshot reads as absent.
    """

    __slots__ = ()

    async def get(self, id: str) -> WorkspaceSnapshot | None:
        """Gives the snapshot stored under `id`, or `None` when it is absent or malformed."""
        cell = await self._cell(id, "snapshot")
        return None if cell is None else parse_snapshot(_unpack(cell))

    async def set(self, snapshot: WorkspaceSnapshot) -> None:
        """Stores a snapshot under its own id, replacing any before it; an id holding a lone
        surrogate or a NUL character is refused with `ENCODING` before anything is written.
        """
        if not _cell_safe(snapshot.id):
            raise WorkspaceStoreError(
                "ENCODING", "A workspace id must be text a table can hold", {"id": snapshot.id}
            )
        record = _pack(snapshot_to_record(snapshot))
        await self._table.set({"id": snapshot.id, "snapshot": record})
