"""Every operator, on every engine, over rows with absent (NULL) cells."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.database import Column, create_database

from .conftest import MakeDriver
from .reference import select

pytestmark = pytest.mark.anyio

TABLES = {
    "items": {
        "id": "string",
        "name": Column("string", optional=True),
        "age": Column("integer", optional=True),
        "score": Column("number", optional=True),
        "active": Column("boolean", optional=True),
        "meta": Column("json", optional=True),
    }
}
TYPES = {
    "id": "string",
    "name": "string",
    "age": "integer",
    "score": "number",
    "active": "boolean",
    "meta": "json",
}
ROWS: list[dict[str, Any]] = [
    {"id": "a", "name": "Alice", "age": 30, "score": 1.5, "active": True, "meta": {"k": 1}},
    {"id": "b", "name": "bob", "age": 17, "score": 2, "active": False, "meta": [1, 2]},
    {"id": "c", "name": "Élodie", "age": 45},
    {"id": "d"},
    {"id": "e", "name": "a%b_c", "age": 30, "score": -3.25, "active": True, "meta": "text"},
    {"id": "f", "name": "", "age": 0, "score": 0, "active": False},
    {"id": "g", "name": "ÉLODIE 😀", "age": -5, "score": 1e300},
]

CASES: list[tuple[str, Any, list[Any], list[str]]] = [
    ("age", "equals", [30], ["a", "e"]),
    ("age", "equals", ["30"], ["a", "e"]),
    ("age", "equals", [None], ["d"]),
    ("name", "equals", [""], ["f"]),
    ("active", "equals", [True], ["a", "e"]),
    ("active", "equals", ["false"], ["b", "f"]),
    ("meta", "equals", [{"k": 1}], ["a"]),
    ("meta", "equals", ["text"], ["e"]),
    ("age", "not", [30], ["b", "c", "d", "f", "g"]),
    ("age", "not", [None], ["a", "b", "c", "e", "f", "g"]),
    ("meta", "not", [[1, 2]], ["a", "c", "d", "e", "f", "g"]),
    ("age", "above", [29.5], ["a", "c", "e"]),
    ("score", "above", [1.5], ["b", "g"]),
    ("name", "above", ["a"], ["b", "c", "e", "g"]),
    ("active", "above", [False], ["a", "e"]),
    ("age", "below", [17], ["d", "f", "g"]),
    ("name", "below", ["B"], ["a", "d", "f"]),
    ("age", "from", [30], ["a", "c", "e"]),
    ("age", "to", [17], ["b", "d", "f", "g"]),
    ("age", "between", [17, 30], ["a", "b", "e"]),
    ("age", "between", [30, 17], []),
    ("score", "between", [-4, 0], ["e", "f"]),
    ("age", "any", [17, 45, 99], ["b", "c"]),
    ("age", "any", [], []),
    ("age", "any", [0, None], ["d", "f"]),
    ("meta", "any", ["text", {"k": 1}], ["a", "e"]),
    ("age", "none", [17, 45], ["a", "d", "e", "f", "g"]),
    ("age", "none", [], ["a", "b", "c", "d", "e", "f", "g"]),
    ("age", "none", [30, None], ["b", "c", "f", "g"]),
    ("name", "like", ["%LODIE%"], ["c", "g"]),
    ("name", "like", ["a%"], ["a", "e"]),
    ("name", "like", ["a_b_c"], ["e"]),
    ("name", "like", ["a\\%b%"], []),
    ("name", "like", ["%"], ["a", "b", "c", "e", "f", "g"]),
    ("name", "like", [""], ["f"]),
    ("name", "glob", ["*odie*"], ["c"]),
    ("name", "glob", ["?ob"], ["b"]),
    ("name", "glob", ["a%b_c"], ["e"]),
    ("name", "glob", ["*"], ["a", "b", "c", "e", "f", "g"]),
    ("name", "starts", ["É"], ["c", "g"]),
    ("name", "starts", [""], ["a", "b", "c", "e", "f", "g"]),
    ("name", "starts", ["a%"], ["e"]),
    ("name", "ends", ["😀"], ["g"]),
    ("name", "ends", ["_c"], ["e"]),
    ("name", "ends", ["ob"], ["b"]),
    ("age", "absent", [], ["d"]),
    ("meta", "absent", [], ["c", "d", "f", "g"]),
    ("age", "present", [], ["a", "b", "c", "e", "f", "g"]),
]


@pytest.fixture
async def items(make_driver: MakeDriver) -> Any:
    database = create_database(tables=TABLES, driver=make_driver())
    table = database.table("items")
    await table.add(ROWS)
    yield table
    await database.close()


@pytest.mark.parametrize(("column", "operator", "values", "expected"), CASES)
async def test_each_operator_selects_the_documented_rows(
    items: Any, column: str, operator: str, values: list[Any], expected: list[str]
) -> None:
    query = {"conditions": [{"column": column, "operator": operator, "values": values}]}
    rows = await items.records(query)
    assert [row["id"] for row in rows] == expected
    assert select(ROWS, query, TYPES, "id") == expected
    assert await items.count(query) == len(expected)


async def test_every_operator_is_covered() -> None:
    from orkestrel.database import OPERATORS

    assert {case[1] for case in CASES} == set(OPERATORS)


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        (
            [
                {"column": "age", "operator": "equals", "values": [17], "connector": "or"},
                {"column": "age", "operator": "equals", "values": [45]},
            ],
            ["b", "c"],
        ),
        (
            [
                {"column": "age", "operator": "equals", "values": [17], "connector": "or"},
                {"column": "age", "operator": "equals", "values": [45], "connector": "and"},
                {"column": "name", "operator": "starts", "values": ["b"]},
            ],
            ["b"],
        ),
        (
            [
                {"column": "age", "operator": "equals", "values": [30]},
                {"column": "active", "operator": "equals", "values": [True], "connector": "or"},
                {"column": "age", "operator": "absent", "values": []},
            ],
            ["a", "d", "e"],
        ),
        (
            [
                {"column": "age", "operator": "equals", "values": [30], "connector": "or"},
                {"column": "age", "operator": "equals", "values": [17]},
                {"column": "active", "operator": "equals", "values": [True]},
            ],
            ["a", "e"],
        ),
    ],
)
async def test_connectors_fold_left_to_right_joining_the_next_condition(
    items: Any, conditions: list[dict[str, Any]], expected: list[str]
) -> None:
    query = {"conditions": conditions}
    assert [row["id"] for row in await items.records(query)] == expected
    assert select(ROWS, query, TYPES, "id") == expected


async def test_absent_cells_are_left_out_of_rows(items: Any) -> None:
    assert await items.get("d") == {"id": "d"}
    assert await items.get("c") == {"id": "c", "name": "Élodie", "age": 45}
    assert await items.get("b") == {
        "id": "b",
        "name": "bob",
        "age": 17,
        "score": 2,
        "active": False,
        "meta": [1, 2],
    }
