"""`SchemaBuilder`: incremental adds, merging, copying and pickling."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from orkestrel.contract import SchemaBuilder, samples_to_schema

ROWS: list[Any] = [
    {"id": 1, "status": "active", "email": "a@b.co", "tags": ["x"]},
    {"id": 2, "status": "inactive", "email": "c@d.io", "tags": []},
    {"id": 3, "status": "active", "email": None},
    {"id": 4.5, "status": "active", "email": "e@f.org", "extra": {"k": [1, "two"]}},
]
OPTIONS: dict[str, Any] = {"format": True, "enum": True}


def test_adding_one_by_one_or_many_matches_samples_to_schema() -> None:
    one = SchemaBuilder(**OPTIONS)
    for row in ROWS:
        one.add(row)
    many = SchemaBuilder(**OPTIONS)
    many.add_many(iter(ROWS))
    expected = samples_to_schema(ROWS, **OPTIONS)
    assert one.to_schema() == many.to_schema() == expected
    assert one.samples == many.samples == len(ROWS)
    assert SchemaBuilder().to_schema() == {}


def test_to_schema_can_be_called_between_adds() -> None:
    builder = SchemaBuilder()
    builder.add({"a": 1})
    assert builder.to_schema()["required"] == ["a"]
    builder.add({"b": 1})
    assert "required" not in builder.to_schema()


def test_merge_is_order_free_and_matches_one_pass() -> None:
    parts = []
    for chunk in (ROWS[:1], ROWS[1:3], ROWS[3:]):
        part = SchemaBuilder(**OPTIONS)
        part.add_many(chunk)
        parts.append(part)
    left = copy.copy(parts[0])
    left.merge(parts[1])
    left.merge(parts[2])
    right = copy.deepcopy(parts[2])
    inner = copy.copy(parts[1])
    inner.merge(parts[0])
    right.merge(inner)
    expected = samples_to_schema(ROWS, **OPTIONS)
    assert left.to_schema() == right.to_schema() == expected
    assert parts[0].samples == 1


def test_merging_a_builder_with_itself_counts_its_samples_twice() -> None:
    builder = SchemaBuilder(enum=True)
    builder.add_many(["a", "b"])
    assert "enum" not in builder.to_schema()
    builder.merge(builder)
    assert builder.samples == 4
    assert builder.to_schema() == samples_to_schema(["a", "b", "a", "b"], enum=True)


def test_merge_refuses_other_options_and_other_types() -> None:
    with pytest.raises(ValueError, match="different options"):
        SchemaBuilder().merge(SchemaBuilder(closed=False))
    with pytest.raises(TypeError):
        SchemaBuilder().merge({})  # type: ignore[arg-type]


@pytest.mark.parametrize("merge", [False, True])
def test_pickle_round_trip_keeps_state_and_options(merge: bool) -> None:
    builder = SchemaBuilder(
        format=True, enum=True, closed=False, max_depth=5, max_properties=3, merge=merge
    )
    builder.add_many(ROWS)
    data = pickle.dumps(builder)
    back = pickle.loads(data)
    assert back.to_schema() == builder.to_schema()
    assert (
        back.options
        == builder.options
        == {
            "format": True,
            "enum": True,
            "closed": False,
            "max_depth": 5,
            "max_properties": 3,
            "merge": merge,
        }
    )
    back.add({"new": 1})
    assert back.samples == builder.samples + 1
    assert len(data) < 2000


def test_corrupt_state_is_refused() -> None:
    builder = SchemaBuilder()
    state = builder.__getstate__()
    with pytest.raises(ValueError, match="state"):
        builder.__setstate__(state[:-1] + b"\xff\xff")
    with pytest.raises(ValueError, match="state"):
        builder.__setstate__(b"not a state")


def _infer_part(rows: list[Any]) -> SchemaBuilder:
    builder = SchemaBuilder(**OPTIONS)
    builder.add_many(rows)
    return builder


def test_map_reduce_across_processes() -> None:
    rows = [dict(row, n=i) for i in range(50) for row in ROWS]
    chunks = [rows[i : i + 37] for i in range(0, len(rows), 37)]
    with ProcessPoolExecutor(max_workers=2) as pool:
        parts = list(pool.map(_infer_part, chunks))
    total = SchemaBuilder(**OPTIONS)
    for part in parts:
        total.merge(part)
    assert total.to_schema() == samples_to_schema(rows, **OPTIONS)


def test_repr_names_options_and_count() -> None:
    builder = SchemaBuilder(enum=True)
    builder.add(1)
    assert repr(builder) == (
        "SchemaBuilder(format=False, enum=True, closed=True, max_depth=32, "
        "max_properties=256, merge=False, samples=1)"
    )


def test_records_first_then_other_kinds_keep_each_record_schema() -> None:
    builder = SchemaBuilder()
    builder.add_many([{"a": 1}, {"b": 2}])
    builder.add(5)
    expected = samples_to_schema([{"a": 1}, {"b": 2}, 5])
    assert builder.to_schema() == expected
    assert len(expected["anyOf"]) == 3
