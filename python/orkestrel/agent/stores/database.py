"""`DatabaseConversationStore`: snapshots kept as rows of one table of the database layer."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from orkestrel.agent.types import ConversationSnapshot
from orkestrel.agent.validators import parse_conversation_snapshot
from orkestrel.database import Column
from orkestrel.database.row_store import RowStore

CONVERSATIONS_TABLE = "conversations"
"""Names the table a database conversation store built by its factory keeps snapshots in."""

CONVERSATIONS_COLUMNS: dict[str, Column] = {"id": Column("string"), "snapshot": Column("json")}
"""Declares the conversations table: the conversation id, and its snapshot as one JSON cell."""

_PACKED = "encoded"


def _cell_safe(text: str) -> bool:
    if "\\u0000" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _pack(snapshot: ConversationSnapshot) -> Any:
    """The cell for a snapshot: the snapshot itself, or when some text of it is one a JSON cell
    cannot hold (a NUL character, a lone surrogate), `{"encoded": base64 of its JSON text}`.
    """
    text = json.dumps(snapshot, ensure_ascii=False, separators=(",", ":"))
    if _cell_safe(text):
        return snapshot
    data = text.encode("utf-8", "surrogatepass")
    return {_PACKED: base64.b64encode(data).decode("ascii")}


def _unpack(cell: Any) -> Any:
    if not (isinstance(cell, dict) and set(cell) == {_PACKED} and isinstance(cell[_PACKED], str)):
        return cell
    try:
        text = base64.b64decode(cell[_PACKED], validate=True).decode("utf-8", "surrogatepass")
        return json.loads(text)
    except (binascii.Error, ValueError, RecursionError):
        return None


class DatabaseConversationStore(RowStore):
    """Keeps each conversation snapshot as a row `{id, snapshot}` of one table of the database
    layer.

    How durable it is belongs to the driver: SQLite in memory by default, a SQLite file or
    PostgreSQL when given. A snapshot holding text a JSON cell cannot hold (a NUL character, a
    lone surrogate) is stored as base64 of its JSON text; a row whose cell is not a well-formed
    snapshot reads as absent.
    """

    __slots__ = ()

    async def get(self, id: str) -> ConversationSnapshot | None:
        """Gives the snapshot stored under `id`, or `None` when it is absent or malformed."""
        cell = await self._cell(id, "snapshot")
        if cell is None:
            return None
        snapshot = parse_conversation_snapshot(_unpack(cell))
        return snapshot if snapshot is not None and snapshot["id"] == id else None

    async def set(self, snapshot: ConversationSnapshot) -> None:
        """Stores a snapshot under its own id, replacing any before it; a snapshot that is not
        well formed raises `ValueError` and writes nothing.
        """
        owned = parse_conversation_snapshot(snapshot)
        if owned is None:
            raise ValueError("not a well-formed conversation snapshot")
        await self._table.set({"id": owned["id"], "snapshot": _pack(owned)})
