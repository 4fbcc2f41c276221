"""Where runs checkpoint their snapshots: in memory, or in one table of the database layer."""

from __future__ import annotations

import uuid
from collections import OrderedDict
from typing import Any

from orkestrel.contract import ContractError, clone_json_value
from orkestrel.database import Column, DatabaseInterface, Transaction
from orkestrel.workflow.constants import TERMINAL_STATUSES, WORKFLOWS_TABLE
from orkestrel.workflow.entries import (
    Written,
    check_lease,
    give_lease,
    hold_lease,
    lease_error,
    read_entries,
    remove_entries,
    take_lease,
    write_entries,
)
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.snapshot import create_restored_workflow
from orkestrel.workflow.types import WorkflowSnapshot
from orkestrel.workflow.workflow import now

WORKFLOWS_COLUMNS: dict[str, Column] = {"id": Column("string"), "entry": Column("string")}
"""Declares the workflow entries table: an entry's key (`[workflow id, part...]` as JSON) and
the entry as JSON text: a head, one row per phase, one per task, and the run's lease."""

WRITTEN_CACHE = 64
"""How many workflow ids a `DatabaseWorkflowStore` remembers its last write of; a run whose
memory was dropped writes all its entries once, then only what changes again."""


def _id_of(snapshot: Any) -> str:
    id = snapshot.get("id") if isinstance(snapshot, dict) else None
    if not isinstance(id, str) or not id:
        raise WorkflowError("RESTORE", "a workflow snapshot needs a non-empty string id")
    return id


class MemoryWorkflowStore:
    """Represents the in-memory `WorkflowStoreInterface`: a process-lifetime dict of snapshots
    keyed by workflow id, copied on write and on read so no caller can alias stored state."""

    __slots__ = ("_leases", "_snapshots")

    def __init__(self) -> None:
        self._snapshots: dict[str, WorkflowSnapshot] = {}
        self._leases: dict[str, tuple[str, int]] = {}

    async def acquire(self, id: str, owner: str, ttl: int) -> None:
        """Takes or renews the lease on `id` for `owner`; `LEASE` while another holds it."""
        held = self._leases.get(id)
        at = now()
        if held is not None and held[0] != owner and held[1] > at:
            raise lease_error(id, held[1] - at)
        self._leases[id] = (owner, at + ttl)

    async def release(self, id: str, owner: str) -> None:
        """Gives back `owner`'s lease on `id`."""
        held = self._leases.get(id)
        if held is not None and held[0] == owner:
            del self._leases[id]

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
    """Represents a `WorkflowStoreInterface` kept in one table of the database layer: a
    snapshot is stored as entries (a head, one per phase, one per task), and each `set` writes,
    in one transaction, only the entries that changed since this store's last write of that
    workflow, so a checkpoint costs what changed and a failed write leaves the previous snapshot
    whole. Entries are encoded and decoded in the worker thread the transaction runs in.

    It also leases runs (`WorkflowLeaseInterface`): on PostgreSQL and on a shared SQLite file
    the lease holds across processes, and a `set` made under a lease renews it, or fails with
    `LEASE` when another runner took it over. `get` raises `RESTORE` for stored entries that
    do not make an exact snapshot.
    """

    __slots__ = ("_database", "_leases", "_table", "_writer", "_written")

    def __init__(self, database: DatabaseInterface, table: str = WORKFLOWS_TABLE) -> None:
        self._database = database
        self._table = table
        self._writer = uuid.uuid4().hex
        self._written: OrderedDict[str, Written] = OrderedDict()
        self._leases: dict[str, tuple[str, int]] = {}

    async def get(self, id: str) -> WorkflowSnapshot | None:
        """Resolves the snapshot stored for `id`, checked exactly, or `None` when none is
        stored."""
        table = self._table

        def read(transaction: Transaction) -> Any:
            snapshot = read_entries(transaction.table(table), id)
            if snapshot is not None:
                create_restored_workflow(snapshot)
            return snapshot

        return await self._database.transaction(read, write=False)

    async def set(self, snapshot: WorkflowSnapshot) -> None:
        """Inserts or replaces a snapshot under its own `id`, as one transaction that writes
        only the entries changed since this store last wrote it."""
        id = _id_of(snapshot)
        table, writer, lease = self._table, self._writer, self._leases.get(id)
        written = self._written.pop(id, None)

        def write(transaction: Transaction) -> Written:
            if lease is not None:
                hold_lease(transaction, id)
            view = transaction.table(table)
            if lease is not None:
                check_lease(view, id, lease[0], lease[1], now())
            return write_entries(view, snapshot, written, writer)

        done = await self._database.transaction(write)
        # A finished run is not written again: remembering it would keep its answers alive.
        if snapshot.get("status") in TERMINAL_STATUSES:
            return
        self._written[id] = done
        while len(self._written) > WRITTEN_CACHE:
            self._written.popitem(last=False)

    async def delete(self, id: str) -> None:
        """Drops the snapshot stored under `id` (its lease, if any, stays)."""
        self._written.pop(id, None)
        table = self._table
        await self._database.transaction(lambda t: remove_entries(t.table(table), id))

    async def acquire(self, id: str, owner: str, ttl: int) -> None:
        """Takes or renews the lease on `id` for `owner` for `ttl` milliseconds, in one
        transaction; `LEASE` while another owner holds an unexpired one."""
        table = self._table
        await self._database.transaction(lambda t: take_lease(t, table, id, owner, ttl, now()))
        self._leases[id] = (owner, ttl)

    async def release(self, id: str, owner: str) -> None:
        """Gives back `owner`'s lease on `id`."""
        if self._leases.get(id, (None,))[0] == owner:
            del self._leases[id]
        table = self._table

        def give(transaction: Transaction) -> None:
            hold_lease(transaction, id)
            give_lease(transaction.table(table), id, owner)

        await self._database.transaction(give)

    async def close(self) -> None:
        """Closes the database the store owns."""
        await self._database.close()

    def __repr__(self) -> str:
        return f"<DatabaseWorkflowStore table={self._table!r}>"
