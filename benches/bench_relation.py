"""`find` of 1,000 owners with a two-level include, against hand-written batched SQL on raw
`sqlite3`.

1,000 accounts, 3 contacts each, 2 notes per contact, in one SQLite file (WAL). Raw is what a
careful hand would write: one `SELECT` for the page, one `IN (...)` query per level, rows turned
into dicts and grouped into nested lists in Python, in one read transaction. Layer is
`Model.find({"contacts": {"notes": True}}, limit=1000)`; tool is the same `find` through
`create_relation_tool` (contract parse, include check, byte cap measured with `json.dumps`).
The three run interleaved, round after round, and the test prints the minimum and median of
each, in wall time and in CPU time (all threads of the process), which a shared machine's load
disturbs less.

Run: `pytest benches/bench_relation.py -c benches/pytest.ini -s` (with a release build installed).
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from orkestrel.database import DatabaseInterface, create_database, create_sqlite_driver
from orkestrel.relation import RelationManagerInterface, create_relation_manager, has_many
from orkestrel.toolbox import create_relation_tool

OWNERS = 1000
ROUNDS = 60
TABLES = {
    "accounts": {"id": "string", "name": "string"},
    "contacts": {"id": "string", "accountId": "string", "name": "string"},
    "notes": {"id": "string", "contactId": "string", "text": "string"},
}
RELATIONS = {
    "accounts": {"contacts": has_many("accountId", "contacts")},
    "contacts": {"notes": has_many("contactId", "notes")},
}
INCLUDE = {"contacts": {"notes": True}}
ACCOUNTS = [{"id": f"a{n:05}", "name": f"Account {n}"} for n in range(OWNERS)]
CONTACTS = [
    {"id": f"c{n:05}{k}", "accountId": f"a{n:05}", "name": f"Contact {n}.{k}"}
    for n in range(OWNERS)
    for k in range(3)
]
NOTES = [
    {"id": f"{contact['id']}-{k}", "contactId": contact["id"], "text": f"note {k} " * 4}
    for contact in CONTACTS
    for k in range(2)
]


def raw_find(connection: sqlite3.Connection) -> list[dict[str, Any]]:
    """The hand-written batched version: three statements, grouped in Python."""

    def select(sql: str, params: list[Any], columns: tuple[str, ...]) -> list[dict[str, Any]]:
        return [dict(zip(columns, row, strict=True)) for row in connection.execute(sql, params)]

    def marks(count: int) -> str:
        return ", ".join("?" * count)

    connection.execute("BEGIN")
    try:
        accounts = select(
            "SELECT id, name FROM accounts ORDER BY id LIMIT ?", [OWNERS], ("id", "name")
        )
        ids = [row["id"] for row in accounts]
        contacts = select(
            f"SELECT id, accountId, name FROM contacts WHERE accountId IN ({marks(len(ids))}) "
            "ORDER BY id",
            ids,
            ("id", "accountId", "name"),
        )
        contact_ids = [row["id"] for row in contacts]
        notes = select(
            f"SELECT id, contactId, text FROM notes WHERE contactId IN ({marks(len(contact_ids))}) "
            "ORDER BY id",
            contact_ids,
            ("id", "contactId", "text"),
        )
    finally:
        connection.execute("COMMIT")
    by_contact: dict[str, list[dict[str, Any]]] = {}
    for note in notes:
        by_contact.setdefault(note["contactId"], []).append(note)
    by_account: dict[str, list[dict[str, Any]]] = {}
    for contact in contacts:
        contact["notes"] = by_contact.get(contact["id"], [])
        by_account.setdefault(contact["accountId"], []).append(contact)
    for account in accounts:
        account["contacts"] = by_account.get(account["id"], [])
    return accounts


@pytest.fixture(scope="module")
def stores(
    tmp_path_factory: pytest.TempPathFactory, loop: asyncio.AbstractEventLoop
) -> Iterator[tuple[sqlite3.Connection, DatabaseInterface, RelationManagerInterface]]:
    folder: Path = tmp_path_factory.mktemp("relation")
    database = create_database(tables=TABLES, driver=create_sqlite_driver(folder / "layer.sqlite3"))
    for name, rows in (("accounts", ACCOUNTS), ("contacts", CONTACTS), ("notes", NOTES)):
        loop.run_until_complete(database.table(name).add(rows))
    raw = sqlite3.connect(folder / "raw.sqlite3", isolation_level=None, check_same_thread=False)
    raw.execute("PRAGMA journal_mode=WAL")
    for ddl in (
        "CREATE TABLE accounts (id TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL) STRICT",
        "CREATE TABLE contacts (id TEXT NOT NULL PRIMARY KEY, accountId TEXT NOT NULL, "
        "name TEXT NOT NULL) STRICT",
        "CREATE TABLE notes (id TEXT NOT NULL PRIMARY KEY, contactId TEXT NOT NULL, "
        "text TEXT NOT NULL) STRICT",
    ):
        raw.execute(ddl)
    raw.execute("BEGIN")
    raw.executemany("INSERT INTO accounts VALUES (?, ?)", [tuple(r.values()) for r in ACCOUNTS])
    raw.executemany("INSERT INTO contacts VALUES (?, ?, ?)", [tuple(r.values()) for r in CONTACTS])
    raw.executemany("INSERT INTO notes VALUES (?, ?, ?)", [tuple(r.values()) for r in NOTES])
    raw.execute("COMMIT")
    manager = create_relation_manager(database=database, relations=RELATIONS)
    yield raw, database, manager
    raw.close()
    loop.run_until_complete(database.close())


def timed(call: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU seconds of one call (CPU time counts the worker threads too)."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def bench_find_two_level_include(
    stores: tuple[sqlite3.Connection, DatabaseInterface, RelationManagerInterface],
    loop: asyncio.AbstractEventLoop,
) -> None:
    raw, _, manager = stores
    accounts = manager.model("accounts")
    tool = create_relation_tool(managers={"shop": manager}, size=2**26)
    arguments = {"operation": "find", "model": "accounts", "include": ["contacts.notes"]}
    contenders: dict[str, Callable[[], Any]] = {
        "raw": lambda: raw_find(raw),
        "layer": lambda: loop.run_until_complete(accounts.find(INCLUDE, limit=OWNERS)),
        "tool": lambda: loop.run_until_complete(tool.execute(arguments))["rows"],
    }
    expected = raw_find(raw)
    for call in contenders.values():
        assert call() == expected
    walls: dict[str, list[float]] = {name: [] for name in contenders}
    cpus: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(ROUNDS):
        for name, call in contenders.items():
            wall, cpu = timed(call)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print()
    print(f"find of {OWNERS} owners, include contacts.notes, {ROUNDS} interleaved rounds")
    for label, times in (("wall", walls), ("cpu", cpus)):
        floor = statistics.median(times["raw"])
        for name, samples in times.items():
            best, median = min(samples), statistics.median(samples)
            print(
                f"{label:>4} {name:>5}: min {best * 1000:7.2f} ms  median {median * 1000:7.2f} ms"
                f"  median / raw {median / floor:4.2f}"
            )
