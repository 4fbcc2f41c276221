"""Keyed reads and writes, single and batched, on every engine."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from orkestrel.database import Column, DatabaseError, create_database

from .conftest import MakeDriver

pytestmark = pytest.mark.anyio

TABLES = {
    "products": {
        "id": "string",
        "name": "string",
        "price": "number",
        "stock": Column("integer", optional=True),
        "sale": Column("boolean", optional=True),
        "tags": Column("json", optional=True),
    }
}


@pytest.fixture
async def products(make_driver: MakeDriver) -> Any:
    database = create_database(tables=TABLES, driver=make_driver())
    yield database.table("products")
    await database.close()


async def code_of(call: Any) -> str:
    with pytest.raises(DatabaseError) as caught:
        await call
    return caught.value.code


async def test_a_row_without_a_key_gets_one_and_reads_back_with_it(products: Any) -> None:
    key = await products.add({"name": "Widget", "price": 25})
    assert isinstance(key, str)
    assert len(key) == 36
    assert await products.get(key) == {"id": key, "name": "Widget", "price": 25}


async def test_single_and_batch_forms(products: Any) -> None:
    assert await products.add({"id": "a", "name": "A", "price": 1}) == "a"
    assert await products.add(
        [{"id": "b", "name": "B", "price": 2}, {"id": "c", "name": "C", "price": 3}]
    ) == ["b", "c"]
    assert await products.add([]) == []
    assert await products.get(["c", "zz", "a"]) == [
        {"id": "c", "name": "C", "price": 3},
        None,
        {"id": "a", "name": "A", "price": 1},
    ]
    assert await products.get("zz") is None
    assert await products.has(["a", "zz"]) == [True, False]
    assert await products.has("b") is True
    assert await products.update(["a", "zz"], {"price": 9}) == [True, False]
    assert await products.update("b", {"stock": 4}) is True
    assert await products.remove(["a", "a", "zz"]) == [True, False, False]
    assert await products.remove("b") is True
    assert await products.keys() == ["c"]


async def test_duplicate_keys_conflict_and_write_nothing(products: Any) -> None:
    await products.add({"id": "a", "name": "A", "price": 1})
    assert await code_of(products.add({"id": "a", "name": "again", "price": 2})) == "CONFLICT"
    batch = [{"id": "x", "name": "X", "price": 1}, {"id": "a", "name": "again", "price": 2}]
    assert await code_of(products.add(batch)) == "CONFLICT"
    twice = [{"id": "y", "name": "Y", "price": 1}, {"id": "y", "name": "Y", "price": 1}]
    assert await code_of(products.add(twice)) == "CONFLICT"
    assert await products.keys() == ["a"]
    assert await products.get("a") == {"id": "a", "name": "A", "price": 1}


async def test_a_batch_with_one_bad_row_writes_nothing(products: Any) -> None:
    good = [{"id": str(i), "name": "ok", "price": i} for i in range(50)]
    for method in (products.add, products.set):
        bad = [*good, {"id": "z", "name": "bad", "price": "not a number"}]
        assert await code_of(method(bad)) == "VALIDATION"
    assert await products.count() == 0


async def test_set_inserts_or_fully_replaces(products: Any) -> None:
    await products.set({"id": "a", "name": "A", "price": 1, "stock": 5, "tags": ["x"]})
    assert await products.set(
        [{"id": "a", "name": "A2", "price": 2}, {"id": "b", "name": "B", "price": 3}]
    ) == ["a", "b"]
    assert await products.get("a") == {"id": "a", "name": "A2", "price": 2}
    assert await products.count() == 2


async def test_update_merges_and_clears_optional_cells(products: Any) -> None:
    await products.add({"id": "a", "name": "A", "price": 1, "stock": 5, "sale": True})
    assert await products.update("a", {"stock": None, "price": "7.5"}) is True
    assert await products.get("a") == {"id": "a", "name": "A", "price": 7.5, "sale": True}
    assert await products.update("a", {}) is True
    assert await products.update("nope", {}) is False
    assert await products.update("a", {"id": "a", "name": "same key"}) is True


@pytest.mark.parametrize(
    "changes",
    [{"id": "other"}, {"name": None}, {"price": "abc"}, {"unknown": 1}, {"sale": "maybe"}],
)
async def test_bad_updates_are_refused_and_change_nothing(products: Any, changes: Any) -> None:
    await products.add({"id": "a", "name": "A", "price": 1})
    assert await code_of(products.update("a", changes)) == "VALIDATION"
    assert await products.get("a") == {"id": "a", "name": "A", "price": 1}


async def test_cells_coerce_like_the_contract_parsers(products: Any) -> None:
    key = await products.add({"id": 42, "name": 7, "price": "12.5", "stock": "3", "sale": "true"})
    assert key == "42"
    assert await products.get(42) == {
        "id": "42",
        "name": "7",
        "price": 12.5,
        "stock": 3,
        "sale": True,
    }
    await products.update(42, {"sale": 0, "stock": 4.0})
    assert (await products.get("42"))["sale"] is False
    assert (await products.get("42"))["stock"] == 4


@pytest.mark.parametrize(
    "row",
    [
        {"name": "A"},
        {"name": "A", "price": float("nan")},
        {"name": "A", "price": float("inf")},
        {"name": "A", "price": True},
        {"name": None, "price": 1},
        {"name": "A", "price": 1, "stock": 1.5},
        {"name": "A", "price": 1, "stock": 2**63},
        {"name": "A", "price": 1, "sale": 2},
        {"name": "A", "price": 1, "extra": 1},
        {"name": "A", "price": 1, "tags": float("nan")},
        {"name": ["A"], "price": 1},
        "not a row",
        [1, 2],
    ],
)
async def test_rows_that_do_not_fit_are_refused(products: Any, row: Any) -> None:
    assert await code_of(products.add(row)) == "VALIDATION"
    assert await products.count() == 0


@pytest.mark.parametrize("key", [None, True, {"a": 1}, float("nan"), b"a"])
async def test_keys_must_be_strings_or_finite_numbers(products: Any, key: Any) -> None:
    assert await code_of(products.get(key)) == "VALIDATION"


async def test_integer_keys_and_a_key_generator(make_driver: MakeDriver) -> None:
    counter = itertools.count(100)
    database = create_database(
        tables={"events": {"seq": "integer", "kind": "string"}},
        primary={"events": "seq"},
        generator=lambda: next(counter),
        driver=make_driver(),
    )
    events = database.table("events")
    assert await events.add([{"kind": "a"}, {"kind": "b"}, {"seq": 7, "kind": "c"}]) == [
        100,
        101,
        7,
    ]
    assert await events.get("101") == {"seq": 101, "kind": "b"}
    assert await events.get("not a number") is None
    assert await events.remove("abc") is False
    assert await events.keys() == [7, 100, 101]
    await database.close()


async def test_an_integer_key_without_a_generator_must_be_given(make_driver: MakeDriver) -> None:
    database = create_database(tables={"t": {"id": "integer"}}, driver=make_driver())
    assert await code_of(database.table("t").add({})) == "VALIDATION"
    await database.close()


async def test_clear_removes_every_row(products: Any) -> None:
    await products.add([{"id": str(i), "name": "n", "price": i} for i in range(5)])
    assert await products.clear() == 5
    assert await products.count() == 0


async def test_large_key_batches_read_across_statements(products: Any) -> None:
    rows = [{"id": f"k{i:05}", "name": "n", "price": i} for i in range(1200)]
    await products.add(rows)
    keys = [*[row["id"] for row in reversed(rows)], "missing"]
    found = await products.get(keys)
    assert [row["id"] if row else None for row in found] == [*keys[:-1], None]
