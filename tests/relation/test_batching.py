"""Batched loading: one read transaction, one query per relation and level whatever the number
of owners, `any` lists chunked under the database's cap, and exact key typing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from orkestrel.database import MAX_VALUES, create_database
from orkestrel.relation import belongs_to, create_relation_manager, has_many, has_through

from .conftest import CountingDriver
from .shop import RELATIONS, TABLES

pytestmark = pytest.mark.anyio

INCLUDE = {"contacts": {"account": {"representatives": True}}}


async def seeded(driver: CountingDriver, owners: int) -> Any:
    database = create_database(tables=TABLES, driver=driver)
    await database.table("accounts").add(
        [{"id": f"a{n:05}", "name": f"Account {n}"} for n in range(owners)]
    )
    await database.table("contacts").add(
        [
            {"id": f"c{n:05}-{k}", "name": f"Contact {k}", "accountId": f"a{n:05}"}
            for n in range(owners)
            for k in range(2)
        ]
    )
    await database.table("representatives").add(
        [{"id": f"r{n}", "name": f"Rep {n}"} for n in range(10)]
    )
    await database.table("accountReps").add(
        [{"accountId": f"a{n:05}", "repId": f"r{n % 10}"} for n in range(owners)]
    )
    driver.reset()
    return database, create_relation_manager(database=database, relations=RELATIONS)


def chunks(count: int) -> int:
    return -(-count // MAX_VALUES)


@pytest.mark.parametrize("owners", [10, 1000])
async def test_a_three_level_include_is_one_query_per_relation_and_level(
    counting: Callable[[], CountingDriver], owners: int
) -> None:
    driver = counting()
    database, manager = await seeded(driver, owners)
    try:
        rows = await manager.model("accounts").find(INCLUDE)
        assert len(rows) == owners
        assert driver.units == 1
        assert len(driver.statements) == 5
        assert driver.selects("accounts") == 2  # the page, then each contact's account
        assert driver.selects("contacts") == 1
        assert driver.selects("accountReps") == 1
        assert driver.selects("representatives") == 1
        first = rows[0]
        assert [c["id"] for c in first["contacts"]] == ["c00000-0", "c00000-1"]
        assert first["contacts"][0]["account"]["representatives"] == [{"id": "r0", "name": "Rep 0"}]
        last = rows[-1]
        rep = f"r{(owners - 1) % 10}"
        assert last["contacts"][1]["account"]["representatives"][0]["id"] == rep
    finally:
        await database.close()


async def test_key_lists_past_the_cap_are_read_in_chunks(
    counting: Callable[[], CountingDriver],
) -> None:
    owners = MAX_VALUES * 2 + 1
    driver = counting()
    database, manager = await seeded(driver, owners)
    try:
        rows = await manager.model("accounts").find(INCLUDE, limit=owners)
        assert len(rows) == owners
        assert driver.units == 1
        assert driver.selects("contacts") == chunks(owners) == 3
        assert driver.selects("accountReps") == 3
        assert driver.selects("representatives") == 1
        assert driver.selects("accounts") == 1 + 3
        assert all(len(row["contacts"]) == 2 for row in rows)
        assert all(row["contacts"][0]["account"]["id"] == row["id"] for row in rows)
        keys = [row["id"] for row in rows]
        driver.reset()
        loaded = await manager.model("accounts").load(keys, {"contacts": True})
        assert [row["id"] for row in loaded] == keys
        assert driver.selects("contacts") == 3
    finally:
        await database.close()


async def test_nothing_to_look_up_issues_no_query(
    counting: Callable[[], CountingDriver],
) -> None:
    driver = counting()
    database, manager = await seeded(driver, 0)
    try:
        assert await manager.model("accounts").find(INCLUDE) == []
        assert len(driver.statements) == 1
        driver.reset()
        assert await manager.model("accounts").load(["ghost"], INCLUDE) == [None]
        assert len(driver.statements) == 1
    finally:
        await database.close()


TYPED = {
    "posts": {"id": "integer", "title": "string"},
    "comments": {"id": "string", "postRef": "string", "postNumber": "integer"},
    "tags": {"id": "string", "postId": "integer", "label": "string"},
    "postTags": {"post": "string", "tag": "string"},
}
TYPED_RELATIONS: dict[str, Any] = {
    "comments": {
        "byText": belongs_to("postRef", "posts"),
        "byNumber": belongs_to("postNumber", "posts"),
    },
    "posts": {
        "textComments": has_many("postRef", "comments"),
        "numberComments": has_many("postNumber", "comments"),
        "tagged": has_through("postTags", "post", "tag", "tags"),
    },
}


async def test_keys_join_only_with_keys_of_their_own_type(
    counting: Callable[[], CountingDriver],
) -> None:
    driver = counting()
    database = create_database(tables=TYPED, driver=driver)
    try:
        await database.table("posts").add([{"id": 1, "title": "one"}, {"id": 2, "title": "two"}])
        await database.table("comments").add(
            [
                {"id": "k1", "postRef": "1", "postNumber": 1},
                {"id": "k2", "postRef": "abc", "postNumber": 2},
            ]
        )
        await database.table("tags").add({"id": "t1", "postId": 1, "label": "x"})
        await database.table("postTags").add({"post": "1", "tag": "t1"})
        manager = create_relation_manager(database=database, relations=TYPED_RELATIONS)
        driver.reset()
        comments = await manager.model("comments").find({"byText": True, "byNumber": True})
        assert [(c["byText"], c["byNumber"]["id"]) for c in comments] == [(None, 1), (None, 2)]
        assert driver.selects("posts") == 1  # the string keys were never sent to `posts`
        posts = await manager.model("posts").find(
            {"textComments": True, "numberComments": True, "tagged": True}
        )
        assert [len(p["textComments"]) for p in posts] == [0, 0]
        assert [[c["id"] for c in p["numberComments"]] for p in posts] == [["k1"], ["k2"]]
        assert [p["tagged"] for p in posts] == [[], []]
    finally:
        await database.close()


async def test_numbers_of_either_numeric_type_join(make_driver: Any) -> None:
    database = create_database(
        tables={
            "items": {"id": "integer", "name": "string"},
            "lines": {"id": "string", "item": "number"},
        },
        driver=make_driver(),
    )
    try:
        await database.table("items").add({"id": 3, "name": "three"})
        await database.table("lines").add([{"id": "l1", "item": 3.0}, {"id": "l2", "item": 3.5}])
        manager = create_relation_manager(
            database=database,
            relations={
                "lines": {"item": belongs_to("item", "items")},
                "items": {"lines": has_many("item", "lines")},
            },
        )
        lines = await manager.model("lines").find({"item": True})
        assert [line["item"] for line in lines] == [{"id": 3, "name": "three"}, None]
        assert await manager.model("items").load("3") == {"id": 3, "name": "three"}
        assert await manager.model("items").load("three") is None
        item = await manager.model("items").load(3, {"lines": True})
        assert item is not None
        assert [line["id"] for line in item["lines"]] == ["l1"]
    finally:
        await database.close()
