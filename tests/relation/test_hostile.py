"""Hostile input to the relation layer: keys of the wrong type, huge key lists, names full of
SQL metacharacters, and include trees that are deep, cyclic or lying. Each gets a typed error,
and no query runs when none should."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from orkestrel.database import DatabaseError, create_database
from orkestrel.relation import (
    MAX_INCLUDE_DEPTH,
    RelationError,
    belongs_to,
    create_relation_manager,
    has_many,
    has_through,
)

from .conftest import CountingDriver
from .shop import fill, shop

pytestmark = pytest.mark.anyio


@pytest.fixture
async def counted(counting: Callable[[], CountingDriver]) -> Any:
    driver = counting()
    database, manager = shop(driver)
    await fill(database)
    driver.reset()
    yield driver, manager
    await database.close()


@pytest.mark.parametrize("key", [True, None, {"id": "acc1"}, float("nan"), [True], [["acc1"]]])
async def test_keys_of_the_wrong_type_are_refused_before_any_query(counted: Any, key: Any) -> None:
    driver, manager = counted
    with pytest.raises(DatabaseError) as caught:
        await manager.model("accounts").load(key, {"contacts": True})
    assert caught.value.code == "VALIDATION"
    assert driver.statements == []


@pytest.mark.parametrize("key", [True, None, {"a": 1}, [1, 2], float("inf")])
async def test_junction_keys_of_the_wrong_type_are_refused(counted: Any, key: Any) -> None:
    driver, manager = counted
    accounts = manager.model("accounts")
    for call in (
        lambda: accounts.link(key, "representatives", "rep1"),
        lambda: accounts.link("acc1", "representatives", key),
        lambda: accounts.unlink(key, "representatives", "rep1"),
        lambda: accounts.unlink("acc1", "representatives", key),
        lambda: accounts.links(key, "representatives"),
    ):
        with pytest.raises(DatabaseError) as caught:
            await call()
        assert caught.value.code == "VALIDATION"
    assert driver.statements == []


async def test_a_huge_key_list_reads_in_batches(counted: Any) -> None:
    driver, manager = counted
    keys: list[Any] = [f"k{n}" for n in range(50_000)] + ["acc1"]
    loaded = await manager.model("accounts").load(keys, {"contacts": True})
    assert len(loaded) == len(keys)
    assert loaded[:-1] == [None] * 50_000
    assert [c["id"] for c in loaded[-1]["contacts"]] == ["c1", "c2"]
    assert driver.units == 1
    assert driver.selects("contacts") == 1


def cyclic() -> dict[str, Any]:
    include: dict[str, Any] = {}
    include["contacts"] = include
    return include


def deep(levels: int) -> dict[str, Any]:
    include: dict[str, Any] = {}
    for _ in range(levels):
        include = {"contacts": include}
    return include


class Lying(dict[str, Any]):
    def items(self) -> Iterator[Any]:  # type: ignore[override]
        raise RuntimeError("I lie")


@pytest.mark.parametrize(
    "include",
    [
        deep(10_000),
        deep(MAX_INCLUDE_DEPTH + 1),
        cyclic(),
        {"contacts": "yes"},
        {"contacts": 1},
        {7: True},
        ["contacts"],
        "contacts",
        Lying(contacts=True),
    ],
    ids=["deep", "just-too-deep", "cyclic", "string", "number", "key", "list", "text", "lying"],
)
async def test_malformed_includes_are_invalid_before_any_query(counted: Any, include: Any) -> None:
    driver, manager = counted
    for call in (
        lambda: manager.model("accounts").load("acc1", include),
        lambda: manager.model("accounts").find(include),
    ):
        with pytest.raises(RelationError) as caught:
            await call()
        assert caught.value.code == "INVALID"
    assert driver.statements == []


async def test_an_include_at_the_depth_cap_still_loads(counted: Any) -> None:
    driver, manager = counted
    include: dict[str, Any] = {}
    for _ in range(MAX_INCLUDE_DEPTH // 2):
        include = {"contacts": {"account": include}}
    loaded = await manager.model("accounts").load("acc1", include)
    assert loaded["contacts"][0]["account"]["id"] == "acc1"
    assert driver.units == 1


NASTY = "x'; DROP TABLE accounts; --"
QUOTED = 'we"ird ta`ble'


async def test_names_full_of_sql_metacharacters_are_only_names(make_driver: Any) -> None:
    tables = {
        QUOTED: {"id": "string", NASTY: "string"},
        "owners": {"id": "string", "name": "string"},
        'li"nks': {"o'wner": "string", 'ta"rget': "string"},
    }
    database = create_database(tables=tables, driver=make_driver())
    try:
        manager = create_relation_manager(
            database=database,
            relations={
                "owners": {
                    NASTY: has_many(NASTY, QUOTED),
                    "'); DELETE FROM owners; --": has_through(
                        'li"nks', "o'wner", 'ta"rget', QUOTED
                    ),
                },
                QUOTED: {"owner; --": belongs_to(NASTY, "owners")},
            },
        )
        await database.table("owners").add({"id": "o1", "name": "O"})
        await database.table(QUOTED).add({"id": "w1", NASTY: "o1"})
        owners = manager.model("owners")
        assert await owners.link("o1", "'); DELETE FROM owners; --", "w1") is True
        loaded = await owners.load(
            "o1", {NASTY: {"owner; --": True}, "'); DELETE FROM owners; --": True}
        )
        assert loaded[NASTY] == [{"id": "w1", NASTY: "o1", "owner; --": {"id": "o1", "name": "O"}}]
        assert loaded["'); DELETE FROM owners; --"] == [{"id": "w1", NASTY: "o1"}]
        assert await database.table("owners").count() == 1
        with pytest.raises(RelationError) as caught:
            await owners.link("o1", "x'); DROP TABLE owners; --", "w1")
        assert caught.value.code == "UNKNOWN_RELATION"
    finally:
        await database.close()


async def test_hostile_relation_maps_are_invalid() -> None:
    database = create_database(tables={"a": {"id": "string", "b": "string"}})
    for relations in (
        {"a": {"r": {"column": "b" * 100_000}}},
        {"a": {"r": {"key": None}}},
        {"a": {"r": {"model": ["a"], "column": "b"}}},
        {"a": {"r": {"column": "b", "model": "a\x00"}}},
        {"a; DROP TABLE a": {}},
        {"a": Lying()},
    ):
        with pytest.raises(RelationError) as caught:
            create_relation_manager(database=database, relations=relations)
        assert caught.value.code == "INVALID"
