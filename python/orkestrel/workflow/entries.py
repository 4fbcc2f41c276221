"""A snapshot as separate table entries (a head, one per phase, one per task), so a checkpoint
writes only the entries that changed; and the run's lease, an entry of its own."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from orkestrel.database import Transaction, TransactionTable
from orkestrel.workflow.errors import WorkflowError
from orkestrel.workflow.types import WorkflowSnapshot

_PHASE_KEYS = ("id", "name", "description", "status", "bail", "concurrency")
_HEAD_KEYS = ("id", "name", "description", "status", "bail", "created", "updated")


def entry_key(workflow: str, *part: str | int) -> str:
    """The row key of one entry of `workflow`: a JSON array, so no two ids can collide."""
    return json.dumps([workflow, *part], separators=(",", ":"))


def encode(value: Any) -> str:
    """Compact JSON of an entry, or `RESTORE` for a value that is not JSON."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as error:
        raise WorkflowError("RESTORE", f"a workflow snapshot must be JSON: {error}") from None


def decode(row: Any, key: str) -> Any:
    """The entry a row holds, or `RESTORE` when it is missing or not JSON."""
    text = row.get("entry") if isinstance(row, dict) else None
    if not isinstance(text, str):
        raise WorkflowError("RESTORE", f"the stored workflow entry {key} is missing")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise WorkflowError("RESTORE", f"the stored workflow entry {key} is not JSON") from None


@dataclass
class Written:
    """What one store last wrote for one workflow id: the head's writer token, each phase entry,
    and each task snapshot object (the runner shares an unchanged task's object between
    checkpoints, so an identical object needs no write)."""

    writer: str
    phases: list[dict[str, Any]] = field(default_factory=list)
    tasks: dict[str, Any] = field(default_factory=dict)


def _phase_entry(phase: Any) -> dict[str, Any]:
    entry = {key: phase[key] for key in _PHASE_KEYS if key in phase}
    entry["tasks"] = [task.get("id") if isinstance(task, dict) else None for task in phase["tasks"]]
    return entry


def _stored_keys(table: TransactionTable, workflow: str) -> list[str]:
    """The keys of every entry stored for `workflow` but its lease, read from its head and
    phases (a transaction keeps them consistent)."""
    head_key = entry_key(workflow, "head")
    head = table.get(head_key)
    if head is None:
        return []
    keys = [head_key]
    count = decode(head, head_key).get("phases", 0)
    phase_keys = [entry_key(workflow, "phase", index) for index in range(int(count))]
    keys += phase_keys
    for key, row in zip(
        phase_keys, table.get(tuple(phase_keys)) if phase_keys else [], strict=True
    ):
        if row is not None:
            keys += [entry_key(workflow, "task", str(id)) for id in decode(row, key)["tasks"]]
    return keys


def write_entries(
    table: TransactionTable, snapshot: WorkflowSnapshot, written: Written | None, writer: str
) -> Written:
    """Writes what changed of `snapshot` since `written`, or every entry when this store was not
    the last to write the workflow (its head holds another writer); what is now written."""
    workflow = snapshot["id"]
    head_key = entry_key(workflow, "head")
    if written is not None:
        head = table.get(head_key)
        if head is None or decode(head, head_key).get("writer") != written.writer:
            written = None
    stale = set(_stored_keys(table, workflow)) if written is None else set()
    now = Written(writer)
    rows: list[dict[str, Any]] = []
    phases: Any = snapshot.get("phases")
    if not isinstance(phases, list):
        raise WorkflowError("RESTORE", "a workflow snapshot needs a list of phases")
    for index, phase in enumerate(phases):
        if not isinstance(phase, dict) or not isinstance(phase.get("tasks"), list):
            raise WorkflowError("RESTORE", "a workflow snapshot phase needs a list of tasks")
        entry = _phase_entry(phase)
        now.phases.append(entry)
        key = entry_key(workflow, "phase", index)
        stale.discard(key)
        if written is None or index >= len(written.phases) or written.phases[index] != entry:
            rows.append({"id": key, "entry": encode(entry)})
        for task in phase["tasks"]:
            id = task.get("id") if isinstance(task, dict) else None
            if not isinstance(id, str):
                raise WorkflowError("RESTORE", "a workflow snapshot task needs a string id")
            now.tasks[id] = task
            key = entry_key(workflow, "task", id)
            stale.discard(key)
            if written is None or written.tasks.get(id) is not task:
                rows.append({"id": key, "entry": encode(task)})
    if written is not None:
        stale.update(entry_key(workflow, "task", id) for id in written.tasks if id not in now.tasks)
        stale.update(
            entry_key(workflow, "phase", index)
            for index in range(len(now.phases), len(written.phases))
        )
    head = {key: snapshot[key] for key in _HEAD_KEYS if key in snapshot}  # type: ignore[literal-required]
    head["phases"] = len(phases)
    head["writer"] = writer
    stale.discard(head_key)
    rows.append({"id": head_key, "entry": encode(head)})
    if stale:
        table.remove(tuple(sorted(stale)))
    table.set(tuple(rows))
    return now


def read_entries(table: TransactionTable, workflow: str) -> dict[str, Any] | None:
    """The snapshot the entries of `workflow` assemble into, unchecked, or `None`."""
    head_key = entry_key(workflow, "head")
    row = table.get(head_key)
    if row is None:
        return None
    head = decode(row, head_key)
    if not isinstance(head, dict) or not isinstance(head.get("phases"), int):
        raise WorkflowError("RESTORE", f"the stored workflow entry {head_key} is not a head")
    count = head.pop("phases")
    head.pop("writer", None)
    phase_keys = [entry_key(workflow, "phase", index) for index in range(count)]
    phases = [
        decode(row, key) for key, row in zip(phase_keys, _many(table, phase_keys), strict=True)
    ]
    ids = [id for phase in phases for id in _task_ids(phase)]
    task_keys = [entry_key(workflow, "task", id) for id in ids]
    tasks = dict(
        zip(
            ids,
            (decode(r, k) for k, r in zip(task_keys, _many(table, task_keys), strict=True)),
            strict=True,
        )
    )
    for phase in phases:
        phase["tasks"] = [tasks[id] for id in _task_ids(phase)]
    head["phases"] = phases
    return head


def _many(table: TransactionTable, keys: list[str]) -> list[Any]:
    return table.get(tuple(keys)) if keys else []


def _task_ids(phase: Any) -> list[str]:
    ids = phase.get("tasks") if isinstance(phase, dict) else None
    if not isinstance(ids, list) or not all(isinstance(id, str) for id in ids):
        raise WorkflowError("RESTORE", "a stored workflow phase entry does not list its tasks")
    return ids


def remove_entries(table: TransactionTable, workflow: str) -> None:
    """Removes every entry of `workflow` but its lease."""
    keys = _stored_keys(table, workflow)
    if keys:
        table.remove(tuple(keys))


def hold_lease(transaction: Transaction, id: str) -> None:
    """Holds the lease row of `id` until the transaction ends, against every other transaction
    that holds it: each reads the lease and writes it back (taking it, renewing it with a
    checkpoint, giving it back), and two at once on PostgreSQL could both go through, leaving
    two runners on one run. SQLite runs one writer at a time already."""
    transaction.exclusive(f"orkestrel.workflow.lease:{id}")


def take_lease(
    transaction: Transaction, table: str, id: str, owner: str, ttl: int, now: int
) -> None:
    """Takes or renews the lease on `id` for `owner`, or `LEASE` while another owner holds it."""
    hold_lease(transaction, id)
    view = transaction.table(table)
    key = entry_key(id, "lease")
    row = view.get(key)
    if row is not None:
        held = decode(row, key)
        if isinstance(held, dict) and held.get("owner") != owner and held.get("expires", 0) > now:
            raise lease_error(id, int(held.get("expires", 0)) - now)
    view.set({"id": key, "entry": encode({"owner": owner, "expires": now + ttl})})


def check_lease(view: TransactionTable, id: str, owner: str, ttl: int, now: int) -> None:
    """Renews `owner`'s lease on `id` inside a write, or `LEASE` when it was lost."""
    key = entry_key(id, "lease")
    row = view.get(key)
    held = None if row is None else decode(row, key)
    if not isinstance(held, dict) or held.get("owner") != owner:
        raise WorkflowError(
            "LEASE",
            f"the lease on workflow '{id}' was taken over by another runner",
            {"workflow": id},
        )
    view.set({"id": key, "entry": encode({"owner": owner, "expires": now + ttl})})


def give_lease(view: TransactionTable, id: str, owner: str) -> None:
    """Removes `owner`'s lease on `id`; another owner's stays."""
    key = entry_key(id, "lease")
    row = view.get(key)
    if row is not None and decode(row, key).get("owner") == owner:
        view.remove(key)


def lease_error(id: str, left: int) -> WorkflowError:
    """The refusal of a lease another runner holds for `left` more milliseconds."""
    return WorkflowError(
        "LEASE",
        f"workflow '{id}' is being run by another runner (its lease expires in {max(left, 0)} ms)",
        {"workflow": id, "expires_in": max(left, 0)},
    )
