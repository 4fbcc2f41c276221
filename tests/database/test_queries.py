"""Ordering, ties, paging, counts and aggregates, on every engine."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.database import Column, DatabaseError, create_database

from .conftest import MakeDriver

pytestmark = pytest.mark.anyio

TABLES = {
    "people": {
        "id": "integer",
        "name": "string",
        "team": Column("string", optional=True),
        "score": Column("number", optional=True),
    }
}
ROWS = [
    {"id": 5, "name": "eve", "team": "red", "score": 3},
    {"id": 1, "name": "ann", "team": "blue", "score": 3},
    {"id": 4, "name": "dan", "score": 1.5},
    {"id": 2, "name": "bob", "team": "red"},
    {"id": 3, "name": "cat", "team": "blue", "score": 10},
    {"id": 6, "name": "Zed", "team": "red", "score": -2},
]


@pytest.fixture
async def people(make_driver: MakeDriver) -> Any:
    database = create_database(tables=TABLES, driver=make_driver())
    table = database.table("people")
    await table.add(ROWS)
    yield table
    await database.close()


def ids(rows: list[dict[str, Any]]) -> list[Any]:
    return [row["id"] for row in rows]


async def test_without_order_rows_come_back_in_key_order(people: Any) -> None:
    assert ids(await people.records()) == [1, 2, 3, 4, 5, 6]
    assert await people.keys() == [1, 2, 3, 4, 5, 6]


async def test_ties_break_by_key(people: Any) -> None:
    ascending = await people.records({"order": [{"column": "team", "direction": "ascending"}]})
    assert ids(ascending) == [4, 1, 3, 2, 5, 6]
    descending = await people.records({"order": [{"column": "score", "direction": "descending"}]})
    assert ids(descending) == [3, 1, 5, 4, 6, 2]


async def test_order_terms_apply_in_priority(people: Any) -> None:
    rows = await people.records(
        {
            "order": [
                {"column": "team", "direction": "descending"},
                {"column": "score", "direction": "ascending"},
            ]
        }
    )
    assert ids(rows) == [2, 6, 5, 1, 3, 4]


async def test_strings_sort_by_code_point(people: Any) -> None:
    rows = await people.records({"order": [{"column": "name", "direction": "ascending"}]})
    assert [row["name"] for row in rows] == ["Zed", "ann", "bob", "cat", "dan", "eve"]


@pytest.mark.parametrize(
    ("limit", "offset", "expected"),
    [
        (2, None, [1, 2]),
        (2, 2, [3, 4]),
        (2, 5, [6]),
        (None, 4, [5, 6]),
        (0, None, []),
        (10, 6, []),
        (None, 2**70, []),
        (2**70, None, [1, 2, 3, 4, 5, 6]),
    ],
)
async def test_paging(people: Any, limit: Any, offset: Any, expected: list[int]) -> None:
    query: dict[str, Any] = {}
    if limit is not None:
        query["limit"] = limit
    if offset is not None:
        query["offset"] = offset
    assert ids(await people.records(query)) == expected


async def test_pages_walk_a_sorted_query_without_gaps(people: Any) -> None:
    order = [{"column": "score", "direction": "ascending"}]
    seen: list[int] = []
    for offset in range(0, 6, 4):
        seen += ids(await people.records({"order": order, "limit": 4, "offset": offset}))
    assert seen == ids(await people.records({"order": order}))


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True, float("nan"), float("inf"), [1]])
async def test_bad_paging_is_refused(people: Any, bad: Any) -> None:
    for field in ("limit", "offset"):
        with pytest.raises(DatabaseError) as caught:
            await people.records({field: bad})
        assert caught.value.code == "VALIDATION"


async def test_count_ignores_paging(people: Any) -> None:
    assert await people.count() == 6
    query = {"conditions": [{"column": "team", "operator": "equals", "values": ["red"]}]}
    assert await people.count({**query, "limit": 1, "offset": 1}) == 3


async def test_aggregates(people: Any) -> None:
    assert await people.aggregate("count", "score") == 6
    assert await people.aggregate("sum", "score") == 15.5
    assert await people.aggregate("average", "score") == 15.5 / 5
    assert await people.aggregate("minimum", "score") == -2
    assert await people.aggregate("maximum", "score") == 10
    assert await people.aggregate("maximum", "id") == 6
    red = {"conditions": [{"column": "team", "operator": "equals", "values": ["red"]}]}
    assert await people.aggregate("sum", "score", red) == 1
    assert await people.aggregate("count", "id", red) == 3


@pytest.mark.parametrize("function", ["sum", "average", "minimum", "maximum"])
async def test_aggregates_over_empty_sets_are_none(people: Any, function: str) -> None:
    nothing = {"conditions": [{"column": "id", "operator": "above", "values": [100]}]}
    assert await people.aggregate(function, "score", nothing) is None
    only_absent = {"conditions": [{"column": "id", "operator": "equals", "values": [2]}]}
    assert await people.aggregate(function, "score", only_absent) is None
    assert await people.aggregate("count", "score", nothing) == 0


async def test_aggregates_refuse_non_numeric_columns_and_unknown_functions(people: Any) -> None:
    for function, column in (("sum", "name"), ("median", "score"), ("sum", "nope")):
        with pytest.raises(DatabaseError) as caught:
            await people.aggregate(function, column)
        assert caught.value.code == "VALIDATION"


async def test_empty_table_answers_empty(make_driver: MakeDriver) -> None:
    database = create_database(tables=TABLES, driver=make_driver())
    table = database.table("people")
    assert await table.records() == []
    assert await table.count() == 0
    assert await table.aggregate("sum", "score") is None
    assert await table.keys() == []
    await database.close()
