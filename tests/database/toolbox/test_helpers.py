"""The database tool's pure helpers: validators, column compilers, limits and the byte cap."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.database import Column, DatabaseError
from orkestrel.toolbox.database.compilers import (
    compile_column,
    compile_column_primitive,
    expand_tables,
)
from orkestrel.toolbox.database.helpers import (
    GET_BATCH,
    clamp_query,
    fit_records,
    get_within,
    infer_database_code,
    normalize_query,
    resolve_limit,
)
from orkestrel.toolbox.database.validators import (
    is_column_primitive,
    is_column_spec,
    is_database_definition,
)


def test_column_dsl_guards() -> None:
    assert all(is_column_primitive(p) for p in ("string", "integer", "number", "boolean"))
    assert not any(is_column_primitive(p) for p in ("json", "String", "", None, 1, ["string"]))
    assert is_column_spec("number")
    assert is_column_spec({"primitive": "string", "optional": True})
    assert is_column_spec({"primitive": "integer"})
    for bad in (
        {"primitive": "json"},
        {"primitive": "string", "optional": "yes"},
        {"primitive": "string", "extra": 1},
        {"type": "string"},
        {},
        "text",
        None,
    ):
        assert not is_column_spec(bad)


GOOD = {
    "id": "shop",
    "driver": "memory",
    "tables": {"products": {"columns": {"name": "string", "price": {"primitive": "number"}}}},
    "primary": {"products": "name"},
    "indexes": {"products": [["price"], ["price", "name"]], "other": []},
    "version": 2.5,
}


class Hostile(dict[str, Any]):
    def items(self) -> Any:
        raise RuntimeError("no")


@pytest.mark.parametrize(
    "bad",
    [
        {**GOOD, "id": ""},
        {**GOOD, "driver": 5},
        {**GOOD, "keys": {"products": "name"}},
        {**GOOD, "tables": {"products": {"columns": {"a": "json"}}}},
        {**GOOD, "tables": {"products": {"columns": {}, "extra": 1}}},
        {**GOOD, "tables": []},
        {**GOOD, "primary": {"products": ""}},
        {**GOOD, "indexes": {"products": [[]]}},
        {**GOOD, "indexes": {"products": [["a", 1]]}},
        {**GOOD, "version": float("nan")},
        {**GOOD, "version": True},
        {**GOOD, "version": "1"},
        Hostile(GOOD),
        {k: v for k, v in GOOD.items() if k != "tables"},
        "shop",
        None,
    ],
)
def test_is_database_definition_refuses_malformed_blobs(bad: Any) -> None:
    assert is_database_definition(bad) is False


def test_is_database_definition_accepts_complete_and_minimal_definitions() -> None:
    assert is_database_definition(GOOD)
    assert is_database_definition({"id": "shop", "driver": "memory", "tables": {}})


def test_column_compilers() -> None:
    assert compile_column_primitive("boolean") == Column("boolean")
    assert compile_column("integer") == Column("integer")
    assert compile_column({"primitive": "string", "optional": True}) == Column(
        "string", optional=True
    )
    assert compile_column({"primitive": "string", "optional": False}) == Column("string")
    spec = {
        "products": {
            "columns": {"name": "string", "price": {"primitive": "number", "optional": True}}
        }
    }
    assert expand_tables(spec) == {
        "products": {"name": Column("string"), "price": Column("number", optional=True)}
    }


def test_limit_helpers_follow_the_seed() -> None:
    assert resolve_limit(10, 100) == 10
    assert resolve_limit(500, 100) == 100
    assert resolve_limit(-3, 100) == 0
    assert resolve_limit(None, 100) == 100
    assert clamp_query({"limit": 10}, 100) == {"query": {"limit": 11}, "limit": 10}
    assert normalize_query(
        {"conditions": [{"column": "age", "operator": "from", "values": [18]}]}
    ) == {"conditions": [{"column": "age", "operator": "from", "values": [18], "connector": "and"}]}


def test_infer_database_code() -> None:
    assert infer_database_code(DatabaseError("NOT_FOUND", "row not found")) == "NOT_FOUND"
    assert infer_database_code(ValueError("x")) is None
    assert infer_database_code(None) is None


ROW = st.dictionaries(
    st.text(max_size=4), st.one_of(st.text(max_size=40), st.integers(), st.booleans()), max_size=4
)


@given(st.lists(ROW, max_size=30), st.integers(0, 30), st.integers(256, 4000))
def test_fit_records_never_exceeds_either_cap(
    rows: list[dict[str, Any]], limit: int, size: int
) -> None:
    answer = fit_records(rows, limit, size)
    assert len(json.dumps(answer)) <= size
    assert answer["count"] == len(answer["rows"]) <= limit
    assert answer["rows"] == rows[: answer["count"]]
    assert answer["limit"] == limit
    assert answer["truncated"] == (len(rows) > answer["count"])
    if not answer["truncated"]:
        assert answer["rows"] == rows


def test_fit_records_at_the_cap_and_one_over() -> None:
    rows = [{"id": str(i), "text": "é" * 50} for i in range(5)]
    exact = len(json.dumps({"rows": rows[:3], "count": 3, "truncated": True, "limit": 10}))
    assert fit_records(rows, 10, exact)["count"] == 3
    assert fit_records(rows, 10, exact - 1)["count"] == 2
    whole = len(json.dumps({"rows": rows, "count": 5, "truncated": False, "limit": 10}))
    assert fit_records(rows, 10, whole) == {
        "rows": rows,
        "count": 5,
        "truncated": False,
        "limit": 10,
    }
    cut = fit_records(rows, 10, whole - 1)
    assert (cut["truncated"], cut["count"]) == (True, 4)
    huge = [{"id": "a", "text": "x" * 10_000}]
    assert fit_records(huge, 10, 1000) == {"rows": [], "count": 0, "truncated": True, "limit": 10}


class _View:
    """A table view whose rows are `width` characters of text, recording every read."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.reads: list[list[Any]] = []

    def get(self, keys: list[Any]) -> list[Any]:
        self.reads.append(list(keys))
        return [{"id": key, "text": "x" * self.width} for key in keys]


def test_a_get_of_large_rows_reads_only_what_could_fit_and_stops_past_the_cap() -> None:
    view = _View(1000)
    assert get_within(view, [f"k{n}" for n in range(100)], 5000) is None  # type: ignore[arg-type]
    # About 1 KB a row: after the first, three more could fit, then one, which does not.
    assert view.reads == [["k0"], ["k1", "k2", "k3"], ["k4"]]


def test_a_get_of_small_rows_reads_in_batches_and_each_key_once() -> None:
    view = _View(10)
    keys = [f"k{n % 300}" for n in range(600)]
    rows = get_within(view, keys, 10**6)  # type: ignore[arg-type]
    assert rows is not None
    assert [row["id"] for row in rows] == keys
    assert len(json.dumps({"rows": rows})) <= 10**6
    assert [len(read) for read in view.reads] == [1, GET_BATCH, 300 - 1 - GET_BATCH]
    assert sorted(key for read in view.reads for key in read) == sorted(set(keys))


def test_a_get_of_more_keys_than_could_ever_fit_reads_nothing() -> None:
    view = _View(0)
    assert get_within(view, list(range(1000)), 5000) is None  # type: ignore[arg-type]
    assert view.reads == []
