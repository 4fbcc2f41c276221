"""`TaskStore`: the MCP tasks of `orkestrel serve`, one row each in the database that keeps the
workflow runs, so every server on that database answers for every task."""

from __future__ import annotations

import secrets
from typing import Any

from orkestrel.database import Column, DatabaseInterface, Transaction, TransactionTable
from orkestrel.mcp.constants import LIVE_TASK_STATUSES, TASK_STALE_MS, TASKS_TABLE

TASKS_COLUMNS: dict[str, Column] = {
    "id": Column("string"),
    "owner": Column("string"),
    "status": Column("string"),
    "expires": Column("integer"),
    "beat": Column("integer"),
    "entry": Column("json"),
}
"""Declares the tasks table: the task id, a digest of who created it, its status, when it is
deleted (milliseconds since the epoch), when its runner last said it is alive, and the rest
(tool, timestamps, TTL, status message, progress, result or error) as JSON."""


def new_task_id() -> str:
    """A fresh task id: 128 random bits, so ids cannot be guessed."""
    return secrets.token_hex(16)


def _live(view: TransactionTable, owner: str) -> int:
    return view.count(
        {
            "conditions": [
                {"column": "owner", "operator": "equals", "values": [owner]},
                {"column": "status", "operator": "any", "values": list(LIVE_TASK_STATUSES)},
            ]
        }
    )


def _sweep(view: TransactionTable, now: int) -> None:
    """Deletes every task whose TTL has run out."""
    gone = view.records(
        {"conditions": [{"column": "expires", "operator": "below", "values": [now]}]}
    )
    if gone:
        view.remove([row["id"] for row in gone])


def _held(transaction: Transaction, id: object) -> TransactionTable:
    """The tasks table, with task `id`'s row held until the transaction ends against every
    other transaction that holds it: each reads the row and writes it back, and two at once on
    PostgreSQL would lose the change of the one that commits first (a runner's beat writing
    back the row it read before its run's end stored the result). SQLite runs one writer at a
    time already."""
    if isinstance(id, str) and id:
        transaction.exclusive(f"orkestrel.mcp.tasks.row:{id}")
    return transaction.table(TASKS_TABLE)


def _mine(view: TransactionTable, id: str, owner: str, now: int) -> dict[str, Any] | None:
    row = view.get(id) if isinstance(id, str) and id else None
    if row is None or row.get("owner") != owner:
        return None
    if int(row["expires"]) < now:
        view.remove(id)
        return None
    return row


class TaskStore:
    """Represents the tasks table over one database (the SQLite file or the PostgreSQL schema
    the workflow runs are kept in). Every method is one transaction. A task's owner is a
    digest of the caller's credentials: a row another owner asks for reads as absent, the
    same as an id that never existed."""

    __slots__ = ("_database",)

    def __init__(self, database: DatabaseInterface) -> None:
        self._database = database

    async def create(
        self,
        owner: str,
        call: dict[str, Any],
        ttl_ms: int,
        max_live: int,
        now: int,
        *,
        resumable: bool = False,
    ) -> dict[str, Any] | None:
        """Inserts a `working` task for `owner` running `call` (`{name, arguments}`), or `None`
        when `owner` already has `max_live` tasks working; deletes expired tasks first. A
        `resumable` task whose runner stops beating is taken over (`adopt`) rather than
        failed."""
        id = new_task_id()
        tool = call["name"]

        def work(transaction: Transaction) -> dict[str, Any] | None:
            transaction.exclusive(f"orkestrel.mcp.tasks:{owner}")
            view = transaction.table(TASKS_TABLE)
            _sweep(view, now)
            if _live(view, owner) >= max_live:
                return None
            entry = {
                "tool": tool,
                "call": call,
                "resumable": resumable,
                "created": now,
                "updated": now,
                "ttlMs": ttl_ms,
            }
            row = {
                "id": id,
                "owner": owner,
                "status": "working",
                "expires": now + ttl_ms,
                "beat": now,
                "entry": entry,
            }
            view.add(row)
            return row

        return await self._database.transaction(work)

    async def get(self, id: str, owner: str, now: int) -> dict[str, Any] | None:
        """The row of task `id` when `owner` made it and it has not expired; a `working` task
        whose runner stopped beating is failed first."""

        def work(transaction: Transaction) -> dict[str, Any] | None:
            view = _held(transaction, id)
            row = _mine(view, id, owner, now)
            if row is None:
                return None
            stale = now - int(row["beat"]) > TASK_STALE_MS
            if row["status"] in LIVE_TASK_STATUSES and stale and not row["entry"].get("resumable"):
                entry = {
                    **row["entry"],
                    "updated": now,
                    "statusMessage": "the server running this task stopped before it finished",
                    "error": {"code": -32603, "message": "the server running this task stopped"},
                }
                view.update(id, {"status": "failed", "entry": entry})
                row = {**row, "status": "failed", "entry": entry}
            return row

        return await self._database.transaction(work)

    async def beat(
        self, id: str, now: int, changes: dict[str, Any] | None = None
    ) -> tuple[str | None, dict[str, Any]]:
        """Records that the runner of `id` is alive (and `changes` to its entry: progress, a
        status message); gives the task's status (`None` when it is gone) and the answers the
        client sent to its input requests since the last beat, by key. Those requests are done
        with; once none is left, an `input_required` task reads `working` again."""

        def work(transaction: Transaction) -> tuple[str | None, dict[str, Any]]:
            view = _held(transaction, id)
            row = view.get(id)
            if row is None:
                return None, {}
            update: dict[str, Any] = {"beat": now}
            entry, status = row["entry"], str(row["status"])
            answers: dict[str, Any] = dict(entry.get("inputResponses") or {})
            if status in LIVE_TASK_STATUSES and (changes or answers):
                asked = {
                    key: request
                    for key, request in (entry.get("inputRequests") or {}).items()
                    if key not in answers
                }
                entry = {**entry, **(changes or {}), "updated": now}
                entry["inputRequests"], entry["inputResponses"] = asked, {}
                update["entry"] = entry
                if status == "input_required" and not asked:
                    status = update["status"] = "working"
            view.update(id, update)
            return status, answers

        return await self._database.transaction(work)

    async def require(self, id: str, key: str, request: dict[str, Any], now: int) -> bool:
        """Publishes `request` (an `elicitation/create` the run waits on) as the input request
        `key` of live task `id`, which reads `input_required` until the client answers it;
        `False` when the task is settled or gone."""

        def work(transaction: Transaction) -> bool:
            view = _held(transaction, id)
            row = view.get(id)
            if row is None or row["status"] not in LIVE_TASK_STATUSES:
                return False
            entry = row["entry"]
            asked = {**(entry.get("inputRequests") or {}), key: request}
            entry = {**entry, "inputRequests": asked, "updated": now}
            view.update(id, {"status": "input_required", "entry": entry, "beat": now})
            return True

        return await self._database.transaction(work)

    async def respond(self, id: str, owner: str, answers: dict[str, Any], now: int) -> bool:
        """Keeps `owner`'s `answers` to the input requests task `id` has outstanding, for its
        runner's next beat; an answer to a key that is not outstanding (never asked, answered
        already) is ignored. `False` when `owner` has no task `id`."""

        def work(transaction: Transaction) -> bool:
            view = _held(transaction, id)
            row = _mine(view, id, owner, now)
            if row is None:
                return False
            entry = row["entry"]
            asked, kept = entry.get("inputRequests") or {}, entry.get("inputResponses") or {}
            fresh = {k: v for k, v in answers.items() if k in asked and k not in kept}
            if row["status"] == "input_required" and fresh:
                entry = {**entry, "inputResponses": {**kept, **fresh}, "updated": now}
                view.update(id, {"entry": entry})
            return True

        return await self._database.transaction(work)

    async def finish(self, id: str, status: str, changes: dict[str, Any], now: int) -> bool:
        """Settles a live task as `status` with `changes` to its entry (its result or error);
        `False` when it was already settled (cancelled, say) or is gone."""

        def work(transaction: Transaction) -> bool:
            view = _held(transaction, id)
            row = view.get(id)
            if row is None or row["status"] not in LIVE_TASK_STATUSES:
                return False
            entry = {**row["entry"], **changes, "updated": now}
            view.update(id, {"status": status, "entry": entry, "beat": now})
            return True

        return await self._database.transaction(work)

    async def adopt(self, now: int, stale_ms: int) -> dict[str, Any] | None:
        """Takes over one resumable working task whose runner has not beaten for `stale_ms`
        (its server died): beats it now, so no other server takes it too, and gives its row;
        `None` when there is none."""

        def stale(view: TransactionTable) -> list[dict[str, Any]]:
            rows = view.records(
                {
                    "conditions": [
                        {"column": "status", "operator": "any", "values": list(LIVE_TASK_STATUSES)},
                        {"column": "beat", "operator": "below", "values": [now - stale_ms]},
                        {"column": "expires", "operator": "above", "values": [now]},
                    ],
                    "order": [{"column": "beat", "direction": "ascending"}],
                }
            )
            return [row for row in rows if row["entry"].get("resumable")]

        def work(transaction: Transaction) -> dict[str, Any] | None:
            transaction.exclusive("orkestrel.mcp.tasks.adopt")
            view = transaction.table(TASKS_TABLE)
            for found in stale(view):
                # Read again once held: its runner may have beaten or finished meanwhile.
                row = _held(transaction, found["id"]).get(found["id"])
                if row is None or row["status"] not in LIVE_TASK_STATUSES:
                    continue
                if int(row["beat"]) >= now - stale_ms:
                    continue
                # The resumed run asks its forms again: the dead run's requests are dropped.
                entry = {**row["entry"], "inputRequests": {}, "inputResponses": {}}
                view.update(row["id"], {"beat": now, "status": "working", "entry": entry})
                return {**row, "beat": now, "status": "working", "entry": entry}
            return None

        # Every server looks every second: a read, and a write only when there is one to take.
        if not await self._database.transaction(
            lambda t: bool(stale(t.table(TASKS_TABLE))), write=False
        ):
            return None
        return await self._database.transaction(work)

    async def cancel(self, id: str, owner: str, now: int) -> None:
        """Marks `owner`'s live task `id` cancelled; anything else is left as it is."""

        def work(transaction: Transaction) -> None:
            view = _held(transaction, id)
            row = _mine(view, id, owner, now)
            if row is None or row["status"] not in LIVE_TASK_STATUSES:
                return
            entry = {**row["entry"], "updated": now, "statusMessage": "cancelled by the client"}
            view.update(id, {"status": "cancelled", "entry": entry})

        await self._database.transaction(work)

    async def count(self) -> int:
        """How many task rows are stored (expired ones included until swept)."""
        return await self._database.transaction(lambda t: t.table(TASKS_TABLE).count(), write=False)

    async def close(self) -> None:
        """Closes the database the store owns."""
        await self._database.close()

    def __repr__(self) -> str:
        return f"<TaskStore table={TASKS_TABLE!r}>"
