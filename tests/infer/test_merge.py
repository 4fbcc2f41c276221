"""The merging mode (`merge=True`): objects merge key-wise wherever they meet, as genson's do.
Laws: every sample validates against the merged schema, the order and the split of the samples
never change it, and neither does the thread count of the JSON Lines reader."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from orkestrel.contract import (
    SchemaBuilder,
    create_contract,
    infer_json,
    infer_json_lines,
    samples_to_schema,
    schema_to_shape,
    value_to_schema,
)

from .test_properties import JSON

RECORDS = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([0.5, "x", "y"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=4)
    ),
    max_leaves=16,
)
"""Values whose objects share a few keys, so merging has something to do."""


def validates(schema: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@given(st.lists(JSON | RECORDS, max_size=8), st.booleans(), st.booleans(), st.booleans())
def test_every_sample_validates_against_its_merged_schema(
    samples: list[Any], format: bool, enum: bool, closed: bool
) -> None:
    schema = samples_to_schema(samples, format=format, enum=enum, closed=closed, merge=True)
    jsonschema.Draft202012Validator.check_schema(schema)
    contract = create_contract(schema_to_shape(schema))
    for sample in samples:
        assert validates(schema, sample)
        assert contract.is_valid(sample)


@given(JSON | RECORDS, st.booleans(), st.booleans())
def test_a_value_validates_against_its_merged_schema(
    value: Any, format: bool, closed: bool
) -> None:
    schema = value_to_schema(value, format=format, closed=closed, merge=True)
    assert validates(schema, value)
    assert schema == samples_to_schema([value], format=format, closed=closed, merge=True)


@given(st.lists(RECORDS, max_size=10), st.randoms(use_true_random=False), st.booleans())
def test_the_order_and_the_split_of_the_samples_never_change_the_schema(
    samples: list[Any], rng: random.Random, enum: bool
) -> None:
    want = samples_to_schema(samples, enum=enum, merge=True)
    shuffled = samples[:]
    rng.shuffle(shuffled)
    assert samples_to_schema(shuffled, enum=enum, merge=True) == want
    parts = [SchemaBuilder(enum=enum, merge=True) for _ in range(rng.randint(1, 4))]
    for sample in shuffled:
        rng.choice(parts).add(sample)
    parts = [pickle.loads(pickle.dumps(part)) for part in parts]
    rng.shuffle(parts)
    total, *rest = parts
    for part in rest:
        total.merge(part)
    assert total.to_schema() == want
    assert total.samples == len(samples)


@given(st.lists(RECORDS, min_size=1, max_size=40))
def test_every_thread_count_gives_the_schema_of_the_samples(samples: list[Any]) -> None:
    text = "".join(json.dumps(sample) + "\n" for sample in samples).encode()
    want = samples_to_schema(samples, merge=True)
    for threads in (1, 2, 3, 8):
        assert infer_json_lines(text, threads=threads, merge=True) == want


def test_a_large_file_gives_one_schema_on_every_thread_count(tmp_path: Path) -> None:
    rng = random.Random(5)
    rows = []
    for index in range(20_000):
        row: dict[str, Any] = {"id": index, "items": []}
        for _ in range(rng.randint(0, 3)):
            item = {key: rng.choice([1, "s", None]) for key in rng.sample("abcde", 2)}
            row["items"].append(item)
        if index % 7 == 0:
            row["extra"] = {"nested": [{"k": index}] if index % 2 else []}
        rows.append(row)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    want = samples_to_schema(rows, merge=True)
    assert want["properties"]["items"]["items"]["type"] == "object"
    for threads in (1, 2, 4, 16):
        assert infer_json_lines(path, threads=threads, merge=True) == want


RECORD_FIELDS = ("id", "name", "email", "age", "tags", "address")


def record(rng: random.Random, index: int) -> dict[str, Any]:
    chosen = [key for key in RECORD_FIELDS[1:] if rng.random() < 0.6]
    values = {
        "name": "n",
        "email": "e@x.co",
        "age": 30,
        "tags": ["a"],
        "address": {"city": "c"} if index % 2 else {"city": "c", "zip": "1"},
    }
    return {"id": index, **{key: values[key] for key in chosen}}


def test_a_document_of_records_gives_one_object_accepting_new_combinations() -> None:
    rng = random.Random(28)
    records = [record(rng, i) for i in range(200)]
    document = json.dumps({"records": records})
    reference = infer_json(document)
    merged = infer_json(document, merge=True)
    assert len(reference["properties"]["records"]["items"]["anyOf"]) > 20
    items = merged["properties"]["records"]["items"]
    assert items["type"] == "object"
    assert items["required"] == ["id"]
    assert sorted(items["properties"]) == sorted(RECORD_FIELDS)
    assert items["properties"]["address"]["required"] == ["city"]
    assert len(json.dumps(merged)) < len(json.dumps(reference)) // 10
    # Fields seen, in a combination no record had: refused by the reference's schema only.
    unseen = {"records": [{"id": 1, "name": "n", "email": "e@x.co", "age": 3, "tags": []}]}
    assert validates(merged, unseen)
    assert not validates(reference, {"records": [{"id": 1, "tags": [], "zzz": 1}]})
    assert not validates(merged, {"records": [{"id": 1, "zzz": 1}]})  # still closed


def test_the_reference_s_mode_stays_the_default() -> None:
    samples = [[{"a": 1}, {"b": 2}]]
    assert samples_to_schema(samples) == samples_to_schema(samples, merge=False)
    assert "anyOf" in samples_to_schema(samples)["items"]
    assert samples_to_schema(samples, merge=True)["items"] == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "additionalProperties": False,
    }
    assert SchemaBuilder().options["merge"] is False


def test_builders_of_the_two_modes_do_not_merge() -> None:
    with pytest.raises(ValueError, match="different options"):
        SchemaBuilder(merge=True).merge(SchemaBuilder())


KEYS = st.sampled_from(["a", "b", "c", "a_key_longer_than_sixteen_bytes", "\\u0061", "\\u0062"])
"""Key spellings as written in the JSON text: a long one, and escaped spellings of `a` and `b`."""


def line_of(entries: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f'"{key}": {json.dumps(value)}' for key, value in entries) + "}"


@given(
    st.lists(st.lists(st.tuples(KEYS, RECORDS), max_size=5), min_size=1, max_size=30),
    st.booleans(),
)
@example([[("a", 1), ("b", 2)], [("a", "x"), ("a", 3)]], True)
@example([[("a", 1), ("b", [1]), ("c", 2)], [("\\u0062", {"a": 1}), ("b", None), ("c", 1)]], True)
def test_json_lines_with_repeated_keys_give_the_schema_of_their_loaded_records(
    rows: list[list[tuple[str, Any]]], merge: bool
) -> None:
    """Records of one length whose keys differ late, repeat an earlier key (the last one wins)
    or spell one escaped: the reader's record shortcuts give what the records as loaded give."""
    lines = [line_of(entries) for entries in rows]
    want = samples_to_schema([json.loads(line) for line in lines], merge=merge)
    text = "\n".join(lines).encode()
    assert infer_json_lines(text, threads=1, merge=merge) == want


def test_wide_json_lines_records_with_containers_past_the_sixty_fourth_key() -> None:
    rng = random.Random(32)
    rows = []
    for index in range(300):
        entries: list[tuple[str, Any]] = []
        for position in range(70):
            value: Any = rng.choice([1, "s", None, 0.5])
            if position in (3, 62, 63, 64, 69):
                value = rng.choice([{"k": position}, [position], {"k": None, "j": 1}, None])
            entries.append((f"k{position}", value))
        if index % 5 == 0:
            entries[rng.randrange(70)] = ("k1", [index])
        rows.append(line_of(entries))
    want = samples_to_schema([json.loads(row) for row in rows], merge=True)
    assert infer_json_lines("\n".join(rows).encode(), threads=1, merge=True) == want
