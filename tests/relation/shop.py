"""A shop with every relation kind, used across the relation suite."""

from __future__ import annotations

from typing import Any

from orkestrel.database import Column, DatabaseInterface, DriverInterface, create_database
from orkestrel.relation import (
    RelationManagerInterface,
    belongs_to,
    create_relation_manager,
    has_many,
    has_morph,
    has_one,
    has_through,
)

TABLES: dict[str, Any] = {
    "accounts": {"id": "string", "name": "string"},
    "contacts": {"id": "string", "name": "string", "accountId": Column("string", optional=True)},
    "profiles": {"id": "string", "accountId": "string", "bio": "string"},
    "representatives": {"id": "string", "name": "string"},
    "accountReps": {"accountId": "string", "repId": "string"},
    "notes": {"id": "string", "subjectId": "string", "subjectType": "string", "text": "string"},
}

RELATIONS: dict[str, Any] = {
    "accounts": {
        "contacts": has_many("accountId"),
        "profile": has_one("accountId", "profiles"),
        "representatives": has_through("accountReps", "accountId", "repId", "representatives"),
        "notes": has_morph("subjectId", "subjectType", "account", "notes"),
    },
    "contacts": {
        "account": belongs_to("accountId", "accounts"),
        "notes": has_morph("subjectId", "subjectType", "contact", "notes"),
    },
    "representatives": {
        "accounts": has_through("accountReps", "repId", "accountId", "accounts"),
    },
}


def shop(driver: DriverInterface) -> tuple[DatabaseInterface, RelationManagerInterface]:
    """An empty shop database on `driver` and its relation manager."""
    database = create_database(tables=TABLES, driver=driver)
    return database, create_relation_manager(database=database, relations=RELATIONS)


async def fill(database: DatabaseInterface) -> None:
    """Two accounts, three contacts (one without an account), two representatives, and notes."""
    await database.table("accounts").add(
        [{"id": "acc1", "name": "Acme"}, {"id": "acc2", "name": "Bolt"}]
    )
    await database.table("contacts").add(
        [
            {"id": "c1", "name": "Ada", "accountId": "acc1"},
            {"id": "c2", "name": "Bea", "accountId": "acc1"},
            {"id": "c3", "name": "Cy"},
        ]
    )
    await database.table("profiles").add({"id": "p1", "accountId": "acc1", "bio": "first"})
    await database.table("representatives").add(
        [{"id": "rep1", "name": "Rex"}, {"id": "rep2", "name": "Ray"}]
    )
    await database.table("accountReps").add(
        [
            {"id": "j1", "accountId": "acc1", "repId": "rep2"},
            {"id": "j2", "accountId": "acc1", "repId": "rep1"},
            {"id": "j3", "accountId": "acc2", "repId": "rep1"},
        ]
    )
    await database.table("notes").add(
        [
            {"id": "n1", "subjectId": "acc1", "subjectType": "account", "text": "big"},
            {"id": "n2", "subjectId": "c1", "subjectType": "contact", "text": "nice"},
            {"id": "n3", "subjectId": "acc1", "subjectType": "contact", "text": "not an account"},
        ]
    )
