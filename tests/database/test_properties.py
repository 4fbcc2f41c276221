"""Properties: every engine agrees with the plain-Python statement of the query semantics."""

from __future__ import annotations

import uuid
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkestrel.database import (
    Column,
    DriverInterface,
    create_database,
    create_memory_driver,
    create_postgres_driver,
)

from .conftest import drop_schema
from .reference import select

TABLES = {
    "t": {
        "id": "integer",
        "s": Column("string", optional=True),
        "n": Column("number", optional=True),
        "b": Column("boolean", optional=True),
    }
}
TYPES = {"id": "integer", "s": "string", "n": "number", "b": "boolean"}
TEXT = st.text(alphabet="aAbé_%*?😀 ", max_size=5)
NUMBERS = st.one_of(st.integers(-5, 5), st.sampled_from([0.5, -1.25, 2.0, 1e300]))
CELLS = {"s": TEXT, "n": NUMBERS, "b": st.booleans()}


@st.composite
def rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    count = draw(st.integers(0, 12))
    result = []
    for key in range(count):
        row: dict[str, Any] = {"id": key}
        for column, strategy in CELLS.items():
            value = draw(st.one_of(st.none(), strategy))
            if value is not None:
                row[column] = value
        result.append(row)
    return result


@st.composite
def conditions(draw: st.DrawFn) -> dict[str, Any]:
    column = draw(st.sampled_from(["s", "n", "b", "id"]))
    operators = ["equals", "not", "above", "below", "from", "to", "between", "any", "none"]
    operators += ["absent", "present"]
    if column == "s":
        operators += ["like", "glob", "starts", "ends"]
    operator = draw(st.sampled_from(operators))
    cells = CELLS.get(column, st.integers(-2, 14))
    if operator in ("absent", "present"):
        values: list[Any] = []
    elif operator in ("any", "none"):
        values = draw(st.lists(st.one_of(st.none(), cells), max_size=3))
    elif operator == "between":
        values = [draw(cells), draw(cells)]
    elif operator in ("equals", "not"):
        values = [draw(st.one_of(st.none(), cells))]
    else:
        values = [draw(cells)]
    condition = {"column": column, "operator": operator, "values": values}
    connector = draw(st.sampled_from([None, "and", "or"]))
    if connector:
        condition["connector"] = connector
    return condition


@st.composite
def queries(draw: st.DrawFn) -> dict[str, Any]:
    query: dict[str, Any] = {"conditions": draw(st.lists(conditions(), max_size=4))}
    order = draw(st.lists(st.sampled_from(["s", "n", "b"]), max_size=2, unique=True))
    query["order"] = [
        {"column": c, "direction": draw(st.sampled_from(["ascending", "descending"]))}
        for c in order
    ]
    if draw(st.booleans()):
        query["limit"] = draw(st.integers(0, 6))
    if draw(st.booleans()):
        query["offset"] = draw(st.integers(0, 6))
    return query


async def compare(
    driver: DriverInterface, data: list[dict[str, Any]], query: dict[str, Any]
) -> None:
    database = create_database(tables=TABLES, driver=driver)
    table = database.table("t")
    try:
        await table.clear()
        await table.add(data)
        got = [row["id"] for row in await table.records(query)]
        assert got == select(data, query, TYPES, "id")
        assert await table.count(query) == len(
            select(data, {**query, "limit": None, "offset": 0}, TYPES, "id")
        )
    finally:
        await database.close()


@settings(max_examples=300)
@given(rows(), queries())
def test_sqlite_agrees_with_the_reference(
    data: list[dict[str, Any]], query: dict[str, Any]
) -> None:
    anyio.run(compare, create_memory_driver(), data, query)


@pytest.fixture(scope="module")
def postgres_schema(postgres_dsn: str) -> Any:
    schema = f"p_{uuid.uuid4().hex[:12]}"
    yield postgres_dsn, schema
    drop_schema(postgres_dsn, schema)


@settings(max_examples=100)
@given(data=rows(), query=queries())
def test_postgres_agrees_with_the_reference(
    postgres_schema: Any, data: list[dict[str, Any]], query: dict[str, Any]
) -> None:
    dsn, schema = postgres_schema
    anyio.run(compare, create_postgres_driver(dsn, schema=schema), data, query)
