"""Every relation kind loaded single and batched on every engine: full, empty, missing foreign
keys, and related rows shared by several owners."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from orkestrel.database import DatabaseInterface
from orkestrel.relation import RelationManagerInterface

from .conftest import MakeDriver
from .shop import fill, shop

pytestmark = pytest.mark.anyio

ACME = {"id": "acc1", "name": "Acme"}
BOLT = {"id": "acc2", "name": "Bolt"}
ADA = {"id": "c1", "name": "Ada", "accountId": "acc1"}
BEA = {"id": "c2", "name": "Bea", "accountId": "acc1"}
CY = {"id": "c3", "name": "Cy"}
REX = {"id": "rep1", "name": "Rex"}
RAY = {"id": "rep2", "name": "Ray"}


@pytest.fixture
async def store(make_driver: MakeDriver) -> AsyncIterator[tuple[DatabaseInterface, Any]]:
    database, manager = shop(make_driver())
    yield database, manager
    await database.close()


@pytest.fixture
async def filled(
    store: tuple[DatabaseInterface, RelationManagerInterface],
) -> RelationManagerInterface:
    await fill(store[0])
    return store[1]


async def test_each_kind_attaches_what_it_names(filled: RelationManagerInterface) -> None:
    include = {"contacts": True, "profile": True, "representatives": True, "notes": True}
    loaded = await filled.model("accounts").load("acc1", include)
    assert loaded == {
        **ACME,
        "contacts": [ADA, BEA],
        "profile": {"id": "p1", "accountId": "acc1", "bio": "first"},
        "representatives": [RAY, REX],
        "notes": [{"id": "n1", "subjectId": "acc1", "subjectType": "account", "text": "big"}],
    }


async def test_batched_loads_answer_positionally(filled: RelationManagerInterface) -> None:
    include = {"contacts": True, "profile": True, "representatives": True, "notes": True}
    rows = await filled.model("accounts").load(["acc2", "ghost", "acc1", "acc2"], include)
    bolt = {**BOLT, "contacts": [], "profile": None, "representatives": [REX], "notes": []}
    assert rows[0] == bolt
    assert rows[1] is None
    assert rows[2] is not None
    assert rows[2]["contacts"] == [ADA, BEA]
    assert rows[3] == bolt
    assert rows[0] is not rows[3]


async def test_empty_relations_on_an_empty_database(
    store: tuple[DatabaseInterface, RelationManagerInterface],
) -> None:
    database, manager = store
    await database.table("accounts").add({"id": "lone", "name": "Lone"})
    await database.table("contacts").add({"id": "orphan", "name": "O"})
    include = {"contacts": True, "profile": True, "representatives": True, "notes": True}
    assert await manager.model("accounts").load("lone", include) == {
        "id": "lone",
        "name": "Lone",
        "contacts": [],
        "profile": None,
        "representatives": [],
        "notes": [],
    }
    contact = await manager.model("contacts").load("orphan", {"account": True, "notes": True})
    assert contact == {"id": "orphan", "name": "O", "account": None, "notes": []}
    assert await manager.model("accounts").find({"contacts": True}) == [
        {"id": "lone", "name": "Lone", "contacts": []}
    ]
    assert await manager.model("notes").find({"anything": True}) == []


async def test_a_missing_foreign_key_is_none_or_empty(filled: RelationManagerInterface) -> None:
    cy = await filled.model("contacts").load("c3", {"account": True})
    assert cy == {**CY, "account": None}
    dangling = filled.model("contacts").table
    await dangling.add({"id": "c4", "name": "Di", "accountId": "gone"})
    assert await filled.model("contacts").load("c4", {"account": True}) == {
        "id": "c4",
        "name": "Di",
        "accountId": "gone",
        "account": None,
    }
    await filled.model("accountReps").table.add(
        {"id": "j9", "accountId": "acc2", "repId": "nobody"}
    )
    bolt = await filled.model("accounts").load("acc2", {"representatives": True})
    assert bolt == {**BOLT, "representatives": [REX]}


async def test_owners_share_one_related_row(filled: RelationManagerInterface) -> None:
    contacts = await filled.model("contacts").find({"account": True})
    assert [row.get("account") for row in contacts] == [ACME, ACME, None]
    reps = await filled.model("representatives").find({"accounts": True})
    assert [[a["id"] for a in rep["accounts"]] for rep in reps] == [["acc1", "acc2"], ["acc1"]]
    notes = filled.model("notes").table
    await notes.add({"id": "n4", "subjectId": "c1", "subjectType": "contact", "text": "again"})
    ada, bea = await filled.model("contacts").load(["c1", "c2"], {"notes": True, "account": True})
    assert ada is not None
    assert bea is not None
    assert [note["id"] for note in ada["notes"]] == ["n2", "n4"]
    assert bea["notes"] == []
    assert ada["account"] == bea["account"] == ACME
    assert ada["account"] is bea["account"]  # one row shared, one dict


async def test_includes_nest_through_each_kind(filled: RelationManagerInterface) -> None:
    include = {
        "contacts": {"account": {"representatives": True}, "notes": True},
        "representatives": {"accounts": {"profile": True}},
    }
    loaded = await filled.model("accounts").load("acc1", include)
    assert loaded is not None
    ada = loaded["contacts"][0]
    assert ada["account"] == {**ACME, "representatives": [RAY, REX]}
    assert [note["text"] for note in ada["notes"]] == ["nice"]
    rex = loaded["representatives"][1]
    assert [(a["id"], a["profile"]) for a in rex["accounts"]] == [
        ("acc1", {"id": "p1", "accountId": "acc1", "bio": "first"}),
        ("acc2", None),
    ]


async def test_false_and_unknown_names_attach_nothing(filled: RelationManagerInterface) -> None:
    loaded = await filled.model("accounts").load("acc1", {"contacts": False, "ghost": True})
    assert loaded == ACME
    assert await filled.model("accounts").load("acc1") == ACME
    assert await filled.model("accounts").load("acc1", {}) == ACME


async def test_one_takes_the_first_row_in_key_order(filled: RelationManagerInterface) -> None:
    profiles = filled.model("profiles").table
    await profiles.add({"id": "p0", "accountId": "acc1", "bio": "zeroth"})
    loaded = await filled.model("accounts").load("acc1", {"profile": True})
    assert loaded is not None
    assert loaded["profile"]["id"] == "p0"


async def test_find_pages_sorts_and_attaches(filled: RelationManagerInterface) -> None:
    accounts = filled.model("accounts")
    rows = await accounts.find({"contacts": True}, sort="name", direction="descending")
    assert [(row["id"], len(row["contacts"])) for row in rows] == [("acc2", 0), ("acc1", 2)]
    page = await accounts.find({"profile": True}, limit=1, offset=1, sort="name")
    assert page == [{**BOLT, "profile": None}]
    assert await accounts.find(limit=0) == []


async def test_an_attached_relation_replaces_a_same_named_column(
    filled: RelationManagerInterface,
) -> None:
    from orkestrel.relation import belongs_to, create_relation_manager

    manager = create_relation_manager(
        database=filled.database,
        relations={"contacts": {"accountId": belongs_to("accountId", "accounts")}},
    )
    ada = await manager.model("contacts").load("c1", {"accountId": True})
    assert ada == {"id": "c1", "name": "Ada", "accountId": ACME}
    both = create_relation_manager(
        database=filled.database,
        relations={
            "contacts": {
                "accountId": belongs_to("accountId", "accounts"),
                "owner": belongs_to("accountId", "accounts"),
            }
        },
    )
    rows = await both.model("contacts").find({"accountId": True, "owner": True}, limit=2)
    assert [(row["accountId"], row["owner"]) for row in rows] == [(ACME, ACME), (ACME, ACME)]


async def test_loaded_rows_are_fresh(filled: RelationManagerInterface) -> None:
    first = await filled.model("accounts").load("acc1", {"contacts": True})
    assert first is not None
    first["contacts"].clear()
    first["name"] = "changed"
    again = await filled.model("accounts").load("acc1", {"contacts": True})
    assert again == {**ACME, "contacts": [ADA, BEA]}
