"""A batch `add` or `set` of plain rows skips the copy the full parse makes: the answer, the
error and the stored rows are the same as through the full parse, for any mix of rows."""

from __future__ import annotations

import math
from collections import UserDict
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkestrel.contract import array_shape, create_contract
from orkestrel.database import Column, create_database, create_memory_driver
from orkestrel.toolbox import ToolboxError, create_database_tool
from orkestrel.toolbox.database import factories
from orkestrel.toolbox.database.shapes import row_shape

TABLES = {
    "items": {
        "id": "string",
        "n": Column("integer", optional=True),
        "data": Column("json", optional=True),
    }
}


_PLAIN = create_contract(array_shape(row_shape))


class Row(dict[str, Any]):
    """A dict subclass row: never taken as it is."""


def rows_strategy() -> st.SearchStrategy[list[Any]]:
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=4),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=6,
    )
    odd = st.sampled_from(
        [math.nan, math.inf, {1, 2}, (1, 2), b"bytes", {1: "int key"}, object(), 2**70]
    )
    cell = st.one_of(json_values, odd)
    row = st.fixed_dictionaries(
        {"n": st.one_of(st.integers(-5, 5), st.text(max_size=2), st.none())},
        optional={"data": cell, "extra": st.integers()},
    )
    good = st.fixed_dictionaries(
        {"n": st.one_of(st.integers(-5, 5), st.none())}, optional={"data": json_values}
    )
    kinds = st.one_of(row, row.map(Row), st.just("not a row"))
    size = {"min_size": factories.PLAIN_ROWS + 1, "max_size": factories.PLAIN_ROWS + 8}
    return st.one_of(st.lists(good, **size), st.lists(kinds, **size))


async def outcome(rows: list[Any], operation: str) -> Any:
    database = create_database(tables=TABLES, driver=create_memory_driver())
    tool = create_database_tool(databases={"db": database})
    keyed = [
        {**row, "id": f"k{index}"} if isinstance(row, dict) else row
        for index, row in enumerate(rows)
    ]
    try:
        answer: Any = await tool.execute(
            {"operation": operation, "id": "db", "table": "items", "row": keyed}
        )
    except ToolboxError as error:
        answer = (error.code, error.message)
    stored = await database.table("items").records()
    await database.close()
    return answer, stored


@settings(max_examples=60, deadline=None)
@given(rows_strategy(), st.sampled_from(["add", "set"]))
def test_plain_rows_give_what_the_full_parse_gives(rows: list[Any], operation: str) -> None:
    plain = factories._plain_rows({"operation": operation, "row": rows}, _PLAIN) is not None
    taken = anyio.run(outcome, rows, operation)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(factories, "PLAIN_ROWS", 10**9)
        parsed = anyio.run(outcome, rows, operation)
    assert taken == parsed
    answer, stored = taken
    if plain and isinstance(answer, dict):
        # Taken as given and accepted by the codec: every row was written.
        assert len(stored) == len(rows)


def test_only_plain_valid_batches_are_taken_as_given() -> None:
    plain = _PLAIN
    rows = [{"id": f"k{i}", "n": i, "data": {"a": [1, 2.5]}} for i in range(20)]
    call = {"operation": "add", "id": "db", "table": "items", "row": rows}
    assert factories._plain_rows(call, plain) is rows
    assert factories._plain_rows({**call, "operation": "set"}, plain) is rows
    refused: list[Any] = [
        UserDict(call),
        {**call, "operation": "records"},
        {**call, "row": rows[: factories.PLAIN_ROWS]},
        {**call, "row": rows * 200},
        {**call, "row": tuple(rows)},
        {**call, "row": [*rows[:-1], Row(rows[-1])]},
        {**call, "row": [Row(rows[0]), *rows[1:]]},
        {**call, "row": [*rows[:-1], "not a row"]},
        {**call, "row": [*rows[:-1], {"id": "x", "data": math.nan}]},
        {**call, "row": [*rows[:-1], {"id": "x", 1: "int key"}]},
        {**call, "row": [*rows[:-1], {"id": "x", "data": {1, 2}}]},
    ]
    for args in refused:
        assert factories._plain_rows(args, plain) is None
