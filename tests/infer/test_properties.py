"""Hypothesis laws of inference: soundness (every sample validates against its schema, checked
with jsonschema and with the contract engine), split-independence of builders and JSON Lines,
and totality of the JSON Lines reader on broken input."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.contract import (
    JSONInputError,
    SchemaBuilder,
    create_contract,
    infer_json,
    infer_json_lines,
    samples_to_schema,
    schema_to_shape,
    value_to_schema,
)

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["2024-01-15", "a@b.co", "550e8400-e29b-41d4-a716-446655440000", "x"])
)
JSON = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(
            st.sampled_from(["a", "b", "10", "é", "😀"]) | st.text(max_size=4), inner, max_size=5
        )
    ),
    max_leaves=30,
)
OPTIONS = st.fixed_dictionaries(
    {"format": st.booleans(), "enum": st.booleans(), "closed": st.booleans()}
)


def validates(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@given(JSON, st.booleans(), st.booleans())
def test_a_value_validates_against_its_schema(value: Any, format: bool, closed: bool) -> None:
    schema = value_to_schema(value, format=format, closed=closed)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert validates(schema, value)
    assert create_contract(schema_to_shape(schema)).is_valid(value)


@given(st.lists(JSON, max_size=8), OPTIONS)
def test_every_sample_validates_against_the_samples_schema(
    samples: list[Any], options: dict[str, bool]
) -> None:
    schema = samples_to_schema(samples, **options)
    contract = create_contract(schema_to_shape(schema))
    for sample in samples:
        assert validates(schema, sample)
        assert contract.is_valid(sample)


@given(st.lists(st.dictionaries(st.sampled_from("abcdef"), JSON, max_size=4), max_size=10), OPTIONS)
def test_record_samples_validate(rows: list[dict[str, Any]], options: dict[str, bool]) -> None:
    schema = samples_to_schema(rows, **options)
    contract = create_contract(schema_to_shape(schema))
    assert all(validates(schema, row) and contract.is_valid(row) for row in rows)


@given(st.lists(JSON, max_size=12), OPTIONS, st.randoms(use_true_random=False))
def test_builder_merge_is_associative_and_commutative(
    samples: list[Any], options: dict[str, bool], rng: random.Random
) -> None:
    parts = [SchemaBuilder(**options) for _ in range(3)]
    for sample in samples:
        rng.choice(parts).add(sample)
    a, b, c = parts

    def joined(*builders: SchemaBuilder) -> dict[str, Any]:
        total = SchemaBuilder(**options)
        for builder in builders:
            total.merge(builder)
        return total.to_schema()

    left = SchemaBuilder(**options)
    left.merge(a)
    left.merge(b)
    right = SchemaBuilder(**options)
    right.merge(b)
    right.merge(c)
    nested_left = SchemaBuilder(**options)
    nested_left.merge(left)
    nested_left.merge(c)
    nested_right = SchemaBuilder(**options)
    nested_right.merge(a)
    nested_right.merge(right)
    expected = samples_to_schema(samples, **options)
    assert nested_left.to_schema() == nested_right.to_schema() == expected
    assert joined(c, a, b) == joined(b, c, a) == expected


@given(st.lists(JSON, max_size=20), OPTIONS, st.randoms(use_true_random=False))
def test_json_lines_split_anywhere_merge_to_the_single_pass(
    samples: list[Any], options: dict[str, bool], rng: random.Random
) -> None:
    lines = [json.dumps(sample).encode() + b"\n" for sample in samples]
    whole = b"".join(lines)
    cuts = sorted(rng.sample(range(len(lines) + 1), k=min(3, len(lines) + 1)))
    total = SchemaBuilder(**options)
    for start, end in zip([0, *cuts], [*cuts, len(lines)], strict=True):
        part = SchemaBuilder(**options)
        part.add_json_lines(b"".join(lines[start:end]), threads=rng.randint(1, 3))
        total.merge(part)
    expected = infer_json_lines(whole, **options)
    assert total.to_schema() == expected == samples_to_schema(samples, **options)


@given(JSON, OPTIONS)
def test_json_text_infers_like_the_parsed_value(value: Any, options: dict[str, bool]) -> None:
    assert infer_json(json.dumps(value), **options) == samples_to_schema([value], **options)


BROKEN = st.lists(
    st.binary(max_size=40)
    | st.sampled_from([b"\x00", b"\xff\xfe", b'{"a":', b'"\xed\xa0\x80"', b"[" * 300, b"1e999"])
    | JSON.map(lambda v: json.dumps(v).encode()),
    max_size=12,
)


@given(BROKEN, st.integers(1, 3))
def test_json_lines_reader_is_total(chunks: list[bytes], threads: int) -> None:
    text = b"\n".join(chunks)
    builder = SchemaBuilder()
    report = builder.add_json_lines(text, errors="skip", threads=threads)
    assert report.samples + report.skipped <= report.lines
    assert [e.line for e in report.errors] == sorted(e.line for e in report.errors)
    builder.to_schema()
    if report.skipped:
        first = report.errors[0]
        with pytest.raises(JSONInputError) as caught:
            infer_json_lines(text, threads=threads)
        assert (caught.value.line, caught.value.column) == (first.line, first.column)
    else:
        assert infer_json_lines(text, threads=threads) == builder.to_schema()


KEYS = ["id", "type", "payload", "action", "ref", "a", "b", "é", "abcdefghijklmnopq", ""]


@st.composite
def alternating_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Records built by Python code that alternate between several key orders (more than a
    slot keeps aside), their keys sometimes the same `str` objects and sometimes equal copies,
    with nested records alternating too."""
    shapes = draw(
        st.lists(st.lists(st.sampled_from(KEYS), min_size=1, max_size=5), min_size=1, max_size=12)
    )
    picks = draw(st.lists(st.integers(0, len(shapes) - 1), max_size=40))
    copies = draw(st.lists(st.booleans(), min_size=len(picks), max_size=len(picks)))
    leaves = draw(st.lists(LEAVES, min_size=len(picks), max_size=len(picks)))
    records = []
    for i, (pick, copy) in enumerate(zip(picks, copies, strict=True)):
        record: dict[str, Any] = {}
        for n, key in enumerate(shapes[pick]):
            name = "".join(list(key)) if copy else key
            if n == 1:
                record[name] = dict.fromkeys(shapes[(pick + i) % len(shapes)], leaves[i])
            else:
                record[name] = leaves[(i + n) % len(leaves)]
        records.append(record)
    return records


@given(alternating_records(), OPTIONS, st.sampled_from([2, 3, 100]))
def test_alternating_record_shapes_infer_as_records_taken_one_at_a_time(
    records: list[dict[str, Any]], flags: dict[str, bool], breadth: int
) -> None:
    options: dict[str, Any] = {**flags, "max_properties": breadth}
    one_at_a_time = SchemaBuilder(**options)
    for record in records:
        single = SchemaBuilder(**options)
        single.add(record)
        one_at_a_time.merge(single)
    expected = one_at_a_time.to_schema()
    assert samples_to_schema(records, **options) == expected
    assert samples_to_schema(tuple(records), **options) == expected
    assert samples_to_schema(iter(records), **options) == expected
    assert (
        infer_json_lines(b"".join(json.dumps(r).encode() + b"\n" for r in records), **options)
        == expected
    )


ELEMENTS = LEAVES | st.dictionaries(st.sampled_from(["a", "b"]), LEAVES, max_size=2)


@given(
    st.lists(ELEMENTS, min_size=1, max_size=4),
    st.lists(st.none() | st.lists(st.integers(0, 3), max_size=3), max_size=30),
    OPTIONS,
)
def test_repeated_array_shapes_infer_as_arrays_taken_one_at_a_time(
    elements: list[Any], picks: list[list[int] | None], options: dict[str, bool]
) -> None:
    # A slot answers an array with the same single element schema as its last one from a
    # cache; a builder given one sample never does. `None` mixes the slot's kinds, so its
    # distinct array schemas are rendered one by one.
    records = [
        {"items": None if pick is None else [elements[i % len(elements)] for i in pick]}
        for pick in picks
    ]
    for samples in (records, [record["items"] for record in records]):
        one_at_a_time = SchemaBuilder(**options)
        for sample in samples:
            single = SchemaBuilder(**options)
            single.add(sample)
            one_at_a_time.merge(single)
        assert samples_to_schema(samples, **options) == one_at_a_time.to_schema()


VALUE_SHAPES = st.sampled_from([None, True, 1, 1.5, "s", [], [1], {"k": 1}])


@given(
    st.lists(st.lists(VALUE_SHAPES, min_size=1, max_size=3), min_size=1, max_size=40),
    st.lists(st.none() | st.integers(0, 39), max_size=60),
    OPTIONS,
)
def test_records_of_many_value_shapes_infer_as_records_taken_one_at_a_time(
    shapes: list[list[Any]], picks: list[int | None], options: dict[str, bool]
) -> None:
    # A slot answers a record whose keys and value schemas repeat one of its recent records'
    # from a short list (more shapes than it keeps here); a builder given one sample never
    # does. `None` mixes the slot's kinds, so its distinct record schemas are rendered one by
    # one.
    records = [
        {
            "inner": None
            if pick is None
            else {f"k{n}": value for n, value in enumerate(shapes[pick % len(shapes)])}
        }
        for pick in picks
    ]
    one_at_a_time = SchemaBuilder(**options)
    for record in records:
        single = SchemaBuilder(**options)
        single.add(record)
        one_at_a_time.merge(single)
    assert samples_to_schema(records, **options) == one_at_a_time.to_schema()


@given(alternating_records(), OPTIONS, st.booleans())
def test_records_added_one_call_at_a_time_infer_as_one_batch(
    records: list[dict[str, Any]], options: dict[str, bool], fresh: bool
) -> None:
    # Each `add` is its own key-identity epoch. With `fresh`, every record is a deep copy made
    # just before its `add` and dropped after it, so a later record's keys may take the
    # addresses of an earlier one's: an identity remembered from an ended epoch must not be
    # trusted.
    builder = SchemaBuilder(**options)
    for record in records:
        builder.add(json.loads(json.dumps(record)) if fresh else record)
    assert builder.to_schema() == samples_to_schema(records, **options)


class _Record:
    """An instance whose `__dict__` is a split table (3.11, 3.12) or its inline values (3.13 on)."""


def _as_instance_dict(record: dict[str, Any]) -> dict[str, Any]:
    instance = _Record()
    for key, value in record.items():
        setattr(instance, key, value)
    return vars(instance)


def _with_holes(record: dict[str, Any]) -> dict[str, Any]:
    holed: dict[Any, Any] = {}
    for n, (key, value) in enumerate(record.items()):
        holed[("gone", n)] = None
        holed[key] = value
    for n in range(len(record)):
        del holed[("gone", n)]
    return holed


def _with_str_holes(record: dict[str, Any]) -> dict[str, Any]:
    # Deleted entries in a table that keeps `str` keys only (the unicode kind).
    holed: dict[str, Any] = {}
    for n, (key, value) in enumerate(record.items()):
        holed[f"gone {n} {key}"] = None
        holed[key] = value
    for n, key in enumerate(record):
        del holed[f"gone {n} {key}"]
    return holed


@given(st.lists(st.dictionaries(st.text(max_size=4), JSON, max_size=6), max_size=8), OPTIONS)
def test_records_infer_alike_whatever_their_table(
    rows: list[dict[str, Any]], options: dict[str, bool]
) -> None:
    # A plain dict is read from its table where the interpreter's layout is known (CPython 3.11
    # to 3.15 with a GIL); an instance's `__dict__` and a dict that once held non-str keys take
    # the other paths (`PyDict_Next`, the general-kind table with its deleted entries). A
    # unicode-kind table, holes or none, is read with no check per key.
    expected = samples_to_schema(rows, **options)
    assert samples_to_schema([_as_instance_dict(r) for r in rows], **options) == expected
    assert samples_to_schema([_with_holes(r) for r in rows], **options) == expected
    assert samples_to_schema([_with_str_holes(r) for r in rows], **options) == expected
    assert [value_to_schema(_with_holes(r)) for r in rows] == [value_to_schema(r) for r in rows]


SCALARS = st.sampled_from([None, True, False, 0, -1, 1.5, 2.0, 1e300, "s", "t\u00e9", '"q"'])


@st.composite
def repeating_lines(draw: st.DrawFn) -> list[Any]:
    """JSON Lines whose records repeat a few skeletons (keys, nesting and value kinds) with
    other values of the same kinds, and now and then another kind in one place."""
    templates = draw(st.lists(JSON, min_size=1, max_size=4))
    picks = draw(st.lists(st.integers(0, len(templates) - 1), max_size=60))
    swaps = draw(st.lists(st.booleans(), min_size=len(picks), max_size=len(picks)))
    scalar = draw(SCALARS)

    def refill(value: Any, swap: bool) -> Any:
        if isinstance(value, dict):
            return {key: refill(item, swap) for key, item in value.items()}
        if isinstance(value, list):
            return [refill(item, swap) for item in value]
        if swap:
            return scalar
        # Another value of the same kind.
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, int):
            return value + 1
        if isinstance(value, float):
            return value / 2
        return value + "x"

    return [refill(templates[pick], swap) for pick, swap in zip(picks, swaps, strict=True)]


@given(
    repeating_lines(), OPTIONS, st.booleans(), st.sampled_from([1, 2]), st.sampled_from([2, 100])
)
def test_json_lines_of_repeated_skeletons_infer_as_samples_taken_one_at_a_time(
    samples: list[Any], flags: dict[str, bool], merge: bool, threads: int, breadth: int
) -> None:
    # A line whose skeleton repeats one met before is counted, not inferred, and added once
    # at the end with its count as weight.
    options: dict[str, Any] = {**flags, "merge": merge, "max_properties": breadth}
    one_at_a_time = SchemaBuilder(**options)
    for sample in samples:
        single = SchemaBuilder(**options)
        single.add(sample)
        one_at_a_time.merge(single)
    data = b"".join(json.dumps(s).encode() + b"\n" for s in samples)
    assert infer_json_lines(data, threads=threads, **options) == one_at_a_time.to_schema()
    builder = SchemaBuilder(**options)
    builder.add_json_lines(data)
    assert builder.samples == one_at_a_time.samples == len(samples)
    # The counts must be right too: one more sample without any key changes `required`.
    for last in ({}, samples[0] if samples else {}):
        builder.add(last)
        one_at_a_time.add(last)
        assert builder.to_schema() == one_at_a_time.to_schema()
