"""`DurableEventStore`: the events of streamable HTTP sessions kept in the database that keeps
the workflow runs (the SQLite file under `--data`, or the PostgreSQL of `--database`), so a
client that reconnects with `Last-Event-ID` to another server on that database, or to this one
restarted, gets the events it missed."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from orkestrel.database import Column, DatabaseInterface, QueryInput, TransactionTable
from orkestrel.mcp.constants import EVENTS_TABLE
from orkestrel.mcp.event_store import EventBounds, StoredEvent

EVENTS_COLUMNS: dict[str, Column] = {
    "id": Column("string"),
    "session": Column("string"),
    "stream": Column("string"),
    "number": Column("integer"),
    "size": Column("integer"),
    "at": Column("integer"),
    "resumed": Column("boolean"),
    "message": Column("json", optional=True),
}
"""Declares the events table: `session:number` as the key, the session and stream the event
was sent on, its number (the event id), its size in bytes of JSON, when it was kept
(milliseconds since the epoch), whether a client reconnected from it, and the message as wire
JSON (absent for a stream's empty priming event)."""

EVENTS_INDEXES = {EVENTS_TABLE: [["session", "stream", "number"], ["number"], ["at"]]}
"""The events table's indexes: a stream's events in order, the oldest overall, the expired."""

_SWEEP = 256
"""How many of the oldest events one pass of the byte bound reads at a time."""


class DurableEventStore:
    """Keeps the events of every session of every server on one database, within `bounds` (as
    `EventStore` does: events per stream, bytes of JSON in all, seconds per event), the oldest
    deleted first. An event's number is the microseconds since
    the epoch when it was kept (one more than the last when the clock has not moved), so it is
    unique within its session, which one server holds, and orders its stream. A session's
    events outlive it (another server may replay them) until a bound deletes them."""

    durable = True

    def __init__(
        self,
        database: DatabaseInterface,
        bounds: EventBounds | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        bounds = bounds or EventBounds()
        self.per_stream = bounds.per_stream
        self.max_bytes = bounds.max_bytes
        self.ttl = bounds.ttl
        self.clock = clock
        self._database = database
        self._last = 0

    async def keep(self, session: str, stream: str, message: Any, size: int) -> int:
        """Keeps `message` (wire JSON, `None` for a priming event) as the next event of
        `session`'s `stream`, deleting what the bounds no longer hold; gives its number."""
        self._last = number = max(round(self.clock() * 1_000_000), self._last + 1)
        now = self._now()
        row = {
            "id": f"{session}:{number}",
            "session": session,
            "stream": stream,
            "number": number,
            "size": size,
            "at": now,
            "resumed": False,
        }
        if message is not None:
            row["message"] = message

        def work(transaction: Any) -> None:
            view: TransactionTable = transaction.table(EVENTS_TABLE)
            view.add(row)
            self._bound(view, session, stream, now)

        await self._database.transaction(work)
        return number

    async def lookup(self, session: str, number: int) -> StoredEvent | None:
        """The kept event `number` of `session`, or `None` when it is not (or no longer) kept."""
        oldest = self._now() - round(self.ttl * 1000)

        def work(transaction: Any) -> StoredEvent | None:
            row = transaction.table(EVENTS_TABLE).get(f"{session}:{number}")
            if row is None or row["session"] != session or int(row["at"]) < oldest:
                return None
            return _event(row)

        return await self._database.transaction(work, write=False)

    async def following(self, session: str, number: int) -> list[tuple[int, StoredEvent]]:
        """The kept events of the stream of `session`'s event `number` that came after it."""
        event = await self.lookup(session, number)
        return [] if event is None else await self.stream_after(session, event.stream, number)

    async def stream_after(
        self, session: str, stream: str, number: int
    ) -> list[tuple[int, StoredEvent]]:
        """The kept events of `session`'s `stream` numbered above `number`, in order."""
        oldest = self._now() - round(self.ttl * 1000)
        query: QueryInput = {
            "conditions": [
                {"column": "session", "operator": "equals", "values": [session]},
                {"column": "stream", "operator": "equals", "values": [stream]},
                {"column": "number", "operator": "above", "values": [number]},
                {"column": "at", "operator": "from", "values": [oldest]},
            ],
            "order": [{"column": "number", "direction": "ascending"}],
        }
        rows = await self._database.transaction(
            lambda transaction: transaction.table(EVENTS_TABLE).records(query), write=False
        )
        return [(int(row["number"]), _event(row)) for row in rows]

    async def mark_resumed(self, session: str, number: int) -> None:
        """Records that a client reconnected from `session`'s event `number`, so the server
        running its call lets it finish."""
        key = f"{session}:{number}"
        await self._database.transaction(
            lambda transaction: transaction.table(EVENTS_TABLE).update(key, {"resumed": True})
        )

    async def was_resumed(self, session: str, stream: str) -> bool:
        """Whether a client reconnected from one of the kept events of `session`'s `stream`."""
        query: QueryInput = {
            "conditions": [
                {"column": "session", "operator": "equals", "values": [session]},
                {"column": "stream", "operator": "equals", "values": [stream]},
                {"column": "resumed", "operator": "equals", "values": [True]},
            ]
        }
        found = await self._database.transaction(
            lambda transaction: transaction.table(EVENTS_TABLE).count(query), write=False
        )
        return bool(found)

    def forget(self, session: str) -> None:
        """Keeps the events of a session that ended: another server may still replay them."""

    async def count(self) -> int:
        """How many events are kept."""
        return await self._database.transaction(
            lambda transaction: transaction.table(EVENTS_TABLE).count(), write=False
        )

    async def close(self) -> None:
        """Closes the database the store owns."""
        await self._database.close()

    def _now(self) -> int:
        return round(self.clock() * 1000)

    def _bound(self, view: TransactionTable, session: str, stream: str, now: int) -> None:
        over = view.records(
            {
                "conditions": [
                    {"column": "session", "operator": "equals", "values": [session]},
                    {"column": "stream", "operator": "equals", "values": [stream]},
                ],
                "order": [{"column": "number", "direction": "descending"}],
                "offset": self.per_stream,
            }
        )
        expired = view.records(
            {
                "conditions": [
                    {"column": "at", "operator": "below", "values": [now - round(self.ttl * 1000)]}
                ]
            }
        )
        gone = {row["id"] for row in [*over, *expired]}
        if gone:
            view.remove(sorted(gone))
        total = int(view.aggregate("sum", "size") or 0)
        while total > self.max_bytes:
            oldest = view.records(
                {"order": [{"column": "number", "direction": "ascending"}], "limit": _SWEEP}
            )
            dropped = []
            for row in oldest:
                if total <= self.max_bytes:
                    break
                dropped.append(row["id"])
                total -= int(row["size"])
            if not dropped:
                return
            view.remove(dropped)

    def __repr__(self) -> str:
        return f"<DurableEventStore table={EVENTS_TABLE!r}>"


def _event(row: dict[str, Any]) -> StoredEvent:
    return StoredEvent(row["stream"], row.get("message"), int(row["size"]), int(row["at"]) / 1000)
