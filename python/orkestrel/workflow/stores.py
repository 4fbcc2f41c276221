"""Where runs checkpoint their snapshots: in memory, or in one table of the database layer."""

from __future__ import annotations

from typing import Any

from orkestrel.contract import ContractError, clone_json_value
from orkestrel.database import Column, DatabaseInterface, TableInterface
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.snapshot import create_restored_workflow
from orkestrel.workflow.types import WorkflowSnapshot

WORKFLOWS_COLUMNS: dict[str, Column] = {"id": Column("string"), "snapshot": Column("json")}
"""Declares the workflows table: the workflow id, and its snapshot as one JSON cell."""


def _id_of(snapshot: Any) -> str:
    id = snapshot.get("id") if isinstance(snapshot, dict) else None
    if not isinstance(id, str) or not id:
        raise WorkflowError("RESTORE", "a workflow snapshot needs a non-empty string id")
    return id


class MemoryWorkflowStore:
    """Represents the in-memory `WorkflowStoreInterface`: a process-lifetime dict of snapshots
    keyed by workflow id, copied on write and on read so no caller can alias stored state."""

    __slots__ = ("_snapshots",)

    def __init__(self) -> None:
        self._snapshots: dict[str, WorkflowSnapshot] = {}

    async def get(self, id: str) -> WorkflowSnapshot | None:
        """Resolves the snapshot stored for `id`, copied out, or `None`."""
        snapshot = self._snapshots.get(id)
        return None if snapshot is None else clone_json_value(snapshot)

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        """Inserts or replaces a snapshot under its own `id`, copied in."""
        id = _id_of(snapshot)
        try:
            self._snapshots[id] = clone_json_value(snapshot)
        except ContractError as error:
            raise WorkflowError("RESTORE", f"a workflow snapshot must be JSON: {error}") from None

    async def delete(self, id: str) -> None:
        """Drops the snapshot stored under `id`."""
        self._snapshots.pop(id, None)

    def __repr__(self) -> str:
        return f"<MemoryWorkflowStore ids={sorted(self._snapshots)!r}>"


class DatabaseWorkflowStore:
    """Represents a `WorkflowStoreInterface` kept in one table of the database layer: each
    snapshot is a row `{id, snapshot}` written in one transaction, so a durable driver keeps
    runs across processes and a failed write leaves the previous snapshot whole.

    `get` raises `RESTORE` for a stored blob that is not an exact snapshot.
    """

    __slots__ = ("_database", "_table")

    def __init__(self, table: TableInterface, database: DatabaseInterface | None = None) -> None:
        self._table = table
        self._database = database

    async def get(self, id: str) -> WorkflowSnapshot | None:
        """Resolves the snapshot stored for `id`, checked exactly, or `None` when no row is
        stored."""
        row: Any = await self._table.get(id)
        if row is None:
            return None
        snapshot = row.get("snapshot")
        create_restored_workflow(snapshot)
        return snapshot  # type: ignore[no-any-return]

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        """Inserts or replaces a snapshot under its own `id`, as one transaction."""
        await self._table.set({"id": _id_of(snapshot), "snapshot": snapshot})

    async def delete(self, id: str) -> None:
        """Drops the snapshot stored under `id`."""
        await self._table.remove(id)

    async def close(self) -> None:
        """Closes the database the store owns, when its factory built one."""
        if self._database is not None:
            await self._database.close()

    def __repr__(self) -> str:
        return f"<DatabaseWorkflowStore table={self._table.name!r}>"
