"""The batching law: for any data, a batched load attaches exactly what a naive lookup, one
query per row and relation, finds; whatever the chunk size of the `any` lists."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import orkestrel.relation.loader as loader
from orkestrel.database import Column, DatabaseInterface, TableInterface, create_database
from orkestrel.relation import (
    belongs_to,
    create_relation_manager,
    has_many,
    has_morph,
    has_one,
    has_through,
)

TABLES = {
    "owners": {"id": "string", "name": "string"},
    "kids": {"id": "string", "owner": Column("string", optional=True), "kind": "string"},
    "links": {"owner": "string", "kid": "string"},
}
RELATIONS: dict[str, Any] = {
    "owners": {
        "kids": has_many("owner", "kids"),
        "first": has_one("owner", "kids"),
        "tagged": has_morph("owner", "kind", "a", "kids"),
        "linked": has_through("links", "owner", "kid", "kids"),
    },
    "kids": {"parent": belongs_to("owner", "owners")},
}
INCLUDE = {"kids": {"parent": True}, "first": True, "tagged": True, "linked": {"parent": True}}

names = st.text(alphabet="abcdefgh", min_size=1, max_size=2)


@st.composite
def shops(draw: st.DrawFn) -> dict[str, Any]:
    owners = draw(st.lists(names, unique=True, max_size=8))
    refs = st.one_of(st.none(), st.sampled_from([*owners, "zz"]) if owners else st.just("zz"))
    kid_ids = draw(st.lists(names, unique=True, max_size=12))
    kids = [
        {"id": f"k{kid}", "owner": draw(refs), "kind": draw(st.sampled_from(["a", "b"]))}
        for kid in kid_ids
    ]
    pair = st.tuples(
        st.sampled_from([*owners, "zz"]) if owners else st.just("zz"),
        st.sampled_from([kid["id"] for kid in kids] + ["kzz"]),
    )
    links = draw(st.lists(pair, max_size=12))
    asked = draw(st.lists(st.sampled_from([*owners, "ghost"]), max_size=10))
    return {"owners": owners, "kids": kids, "links": links, "asked": asked}


async def naive(database: DatabaseInterface, key: str) -> dict[str, Any] | None:
    owners, kids, links = (database.table(name) for name in ("owners", "kids", "links"))
    row = await owners.get(key)
    if row is None:
        return None

    async def where(table: TableInterface, **cells: Any) -> list[dict[str, Any]]:
        conditions: list[Any] = [
            {"column": column, "operator": "equals", "values": [value]}
            for column, value in cells.items()
        ]
        return await table.records({"conditions": conditions})

    async def with_parent(kid: dict[str, Any]) -> dict[str, Any]:
        parent = await owners.get(kid["owner"]) if "owner" in kid else None
        return {**kid, "parent": parent}

    mine = await where(kids, owner=key)
    linked = []
    for link in await where(links, owner=key):
        kid = await kids.get(link["kid"])
        if kid is not None:
            linked.append(await with_parent(kid))
    return {
        **row,
        "kids": [await with_parent(kid) for kid in mine],
        "first": mine[0] if mine else None,
        "tagged": await where(kids, owner=key, kind="a"),
        "linked": linked,
    }


async def check(data: dict[str, Any]) -> None:
    database = create_database(tables=TABLES)
    try:
        await database.table("owners").add([{"id": o, "name": o.upper()} for o in data["owners"]])
        await database.table("kids").add(data["kids"])
        await database.table("links").add(
            [{"id": f"j{n:03}", "owner": o, "kid": k} for n, (o, k) in enumerate(data["links"])]
        )
        manager = create_relation_manager(database=database, relations=RELATIONS)
        batched = await manager.model("owners").load(data["asked"], INCLUDE)
        expected = [await naive(database, key) for key in data["asked"]]
        assert batched == expected
        found = await manager.model("owners").find(INCLUDE)
        assert found == [await naive(database, key) for key in sorted(data["owners"])]
    finally:
        await database.close()


@pytest.mark.parametrize("chunk", [1, 3, loader.MAX_VALUES])
@settings(max_examples=60, deadline=None)
@given(data=shops())
def test_batched_loads_equal_a_naive_per_row_lookup(chunk: int, data: dict[str, Any]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loader, "MAX_VALUES", chunk)
        anyio.run(check, data)
