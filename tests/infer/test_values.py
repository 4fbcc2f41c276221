"""`value_to_schema` and `samples_to_schema` on Python values, including hostile ones."""

from __future__ import annotations

import collections
import datetime
import math
from typing import Any

import pytest

from orkestrel.contract import ContractError, SchemaBuilder, samples_to_schema, value_to_schema

INTEGER = {"type": "integer"}
STRING = {"type": "string"}


def closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    schema["required"] = sorted(properties) if required is None else required
    schema["additionalProperties"] = False
    return schema


def test_reference_examples() -> None:
    assert value_to_schema({"id": 1, "name": "Ada", "tags": ["a", "b"]}) == closed(
        {"id": INTEGER, "name": STRING, "tags": {"type": "array", "items": STRING}}
    )
    assert value_to_schema([]) == {"type": "array"}
    assert value_to_schema([1, "a", 1]) == {
        "type": "array",
        "items": {"anyOf": [INTEGER, STRING]},
    }
    assert value_to_schema({"a": {}}, closed=False) == {
        "type": "object",
        "properties": {"a": {"type": "object", "additionalProperties": True}},
        "required": ["a"],
        "additionalProperties": True,
    }
    assert value_to_schema("2024-01-01", format=True) == {"type": "string", "format": "date"}
    assert samples_to_schema(["a", "a", "b"], enum=True) == {"enum": ["a", "b"]}
    assert samples_to_schema([1, "a"]) == {"anyOf": [INTEGER, STRING]}


def test_numbers_follow_javascript() -> None:
    assert value_to_schema(2.0) == INTEGER
    assert value_to_schema(-0.0) == INTEGER
    assert value_to_schema(1e300) == INTEGER
    assert value_to_schema(2**100) == INTEGER
    assert value_to_schema(0.5) == {"type": "number"}
    for non_finite in (math.nan, math.inf, -math.inf, 10**400, -(10**400)):
        assert value_to_schema(non_finite) == {}
    assert value_to_schema(True) == {"type": "boolean"}
    assert samples_to_schema([True, 1]) == {"anyOf": [{"type": "boolean"}, INTEGER]}
    assert samples_to_schema([1, 1.5, 1], enum=True) == {"enum": [1, 1.5]}
    assert samples_to_schema([math.nan, math.nan], enum=True) == {}
    assert samples_to_schema([2**53, 2**53, 3], enum=True) == {"enum": [3, 2**53]}
    # Beyond 2**53 a double cannot hold every integer, so an enum could reject its samples.
    assert samples_to_schema([2**60 + 1, 2**60 + 1, 3], enum=True) == INTEGER
    assert samples_to_schema([10, 9, 10, 9, 100], enum=True) == {"enum": [10, 100, 9]}


def test_integers_at_the_edge_of_a_double() -> None:
    # Ints of up to 34 digits are read as integers from their size alone; past that the value
    # decides, as a double: finite is an integer, overflowing is a non-finite number.
    for edge in (2**1019, 2**1020, 2**1023, 2**1024 - 2**971, -(2**1023), 10**307):
        assert value_to_schema(edge) == INTEGER
        assert samples_to_schema([{"n": edge}, {"n": 1}]) == value_to_schema({"n": 1})
    for beyond in (2**1024 - 1, 2**1024, -(2**1024), 2**5000):
        assert value_to_schema(beyond) == {}
        assert samples_to_schema([{"n": 1}, {"n": beyond}]) == samples_to_schema(
            [{"n": 1}, {"n": math.inf}]
        )


def test_key_order_follows_javascript_enumeration() -> None:
    schema = samples_to_schema([{"b": 1, "10": 1, "9": 1, "a": 1, "A": 1, "_": 1, "é": 1}])
    assert list(schema["properties"]) == ["9", "10", "A", "_", "a", "b", "é"]
    assert schema["required"] == ["10", "9", "A", "_", "a", "b", "é"]
    astral = value_to_schema({"\uff5e": 1, "😀": 1, "a": 1})
    assert astral["required"] == ["a", "😀", "\uff5e"]


def test_python_types_map_to_json_kinds() -> None:
    moment = datetime.datetime(2024, 1, 2, 3, 4, 5)
    assert value_to_schema((1, 2)) == {"type": "array", "items": INTEGER}
    assert value_to_schema(moment, format=True) == {"type": "string", "format": "date-time"}
    assert value_to_schema(moment.date(), format=True) == {"type": "string", "format": "date"}
    assert value_to_schema(moment.time(), format=True) == {"type": "string", "format": "time"}
    assert value_to_schema(moment) == STRING
    # A date object is not a string, so samples never get a unanimous format from it.
    assert samples_to_schema([moment, moment], format=True, enum=True) == STRING
    for other in ({1, 2}, b"x", object(), print, 1j):
        assert value_to_schema(other) == {}


def test_dict_subclasses_are_read_as_their_stored_items() -> None:
    class Sneaky(dict[str, Any]):
        def items(self) -> Any:
            raise AssertionError("never called")

        def keys(self) -> Any:
            raise AssertionError("never called")

        def __getitem__(self, key: str) -> Any:
            raise AssertionError("never called")

        def __len__(self) -> int:
            return 10**6

        def __iter__(self) -> Any:
            raise AssertionError("never called")

    for mapping in (
        collections.OrderedDict(a=1),
        collections.defaultdict(int, a=1),
        Sneaky(a=1),
    ):
        assert value_to_schema(mapping) == closed({"a": INTEGER})
        assert samples_to_schema([mapping]) == closed({"a": INTEGER})


def test_non_string_keys_are_dropped_and_open_the_object() -> None:
    expected = {
        "type": "object",
        "properties": {"b": INTEGER},
        "required": ["b"],
        "additionalProperties": True,
    }
    value = {1: "a", None: 2, (1, 2): 3, "b": 4}
    assert value_to_schema(value) == expected
    assert samples_to_schema([value]) == expected


def test_lone_surrogates_survive_in_keys_and_enums() -> None:
    schema = samples_to_schema([{"\ud800": "\udfff"}, {"\ud800": "\udfff"}], enum=True)
    assert schema == closed({"\ud800": {"enum": ["\udfff"]}})


def test_huge_strings() -> None:
    text = "x" * 10_000_000
    assert value_to_schema(text, format=True) == STRING
    assert value_to_schema("a@b.co" + "c" * 200, format=True) == STRING


@pytest.mark.parametrize(
    "make", [lambda v: [v], lambda v: {"k": v}, lambda v: (v,)], ids=["list", "dict", "tuple"]
)
def test_deep_nesting_is_cut_at_the_depth_limit(make: Any) -> None:
    value: Any = "leaf"
    for _ in range(100_000):
        value = make(value)
    schema = value_to_schema(value)
    depth = 0
    while schema:
        schema = schema.get("items") or schema.get("properties", {}).get("k", {})
        depth += 1
    assert depth == 32
    assert samples_to_schema([value])
    builder = SchemaBuilder()
    builder.add(value)
    assert builder.to_schema()


def test_the_depth_limit_keeps_32_containers() -> None:
    value: Any = "leaf"
    for _ in range(32):
        value = [value]
    schema = value_to_schema(value)
    for _ in range(32):
        schema = schema["items"]
    assert schema == STRING
    deeper = value_to_schema([value])
    for _ in range(32):
        deeper = deeper["items"]
    assert deeper == {}
    assert value_to_schema({"a": {"b": {"c": 1}}}, max_depth=2) == closed({"a": closed({"b": {}})})


def test_cycles_become_empty_schemas() -> None:
    record: dict[str, Any] = {"n": 1}
    record["self"] = record
    expected = closed({"n": INTEGER, "self": {}})
    assert value_to_schema(record) == expected
    assert samples_to_schema([record]) == expected
    chain: list[Any] = []
    chain.append(chain)
    assert value_to_schema(chain) == {"type": "array", "items": {}}
    assert samples_to_schema([chain, chain]) == {"type": "array", "items": {}}


def test_shared_references_do_not_blow_up() -> None:
    node: Any = {"leaf": 1}
    for _ in range(40):
        node = {"a": node, "b": node, "c": [node, node]}
    # The schema itself would have about 4**32 objects: refused, not built.
    with pytest.raises(ContractError) as caught:
        value_to_schema(node)
    assert caught.value.code == "expansion"
    # Samples stop re-expanding shared containers past a budget; those parts become {}.
    assert samples_to_schema([node])["type"] == "object"
    small: Any = {"leaf": 1}
    for _ in range(4):
        small = {"a": small, "b": small}
    assert value_to_schema(small) == samples_to_schema([small])


def test_a_list_of_one_shared_record_is_inferred_in_full() -> None:
    shared = {"a": [1, {"b": "x"}]}
    rows = [shared] * 300_000
    assert value_to_schema(rows) == {"type": "array", "items": value_to_schema(shared)}
    assert samples_to_schema([rows]) == value_to_schema(rows)


def test_option_budgets_are_sanitised() -> None:
    deep: Any = [[[[1]]]]
    assert value_to_schema(deep, max_depth=0) == {}
    assert value_to_schema(1, max_depth=0) == INTEGER
    for fallback in (-1, 2.5, math.nan, math.inf, 10**400, 40, 1e9):
        assert value_to_schema(deep, max_depth=fallback) == value_to_schema(deep)
    assert value_to_schema({"a": 1, "b": 2}, max_properties=1) == {
        "type": "object",
        "properties": {"a": INTEGER},
        "required": ["a"],
        "additionalProperties": True,
    }
    assert value_to_schema([1, 2], max_properties=0) == {"type": "array"}
    for wrong in ("3", True, None, [1]):
        with pytest.raises(TypeError):
            value_to_schema(deep, max_depth=wrong)  # type: ignore[arg-type]


def test_long_arrays_are_inferred_in_full() -> None:
    value = [1] * 256 + ["x"]
    assert value_to_schema(value) == {"type": "array", "items": {"anyOf": [INTEGER, STRING]}}
    assert samples_to_schema([{"a": value}])["properties"]["a"]["items"]["anyOf"] == [
        INTEGER,
        STRING,
    ]


@pytest.mark.parametrize("samples", ["abc", b"abc", bytearray(b"x"), {"a": 1}, 5, None])
def test_unreadable_samples_are_a_contract_error(samples: Any) -> None:
    with pytest.raises(ContractError) as caught:
        samples_to_schema(samples)
    assert caught.value.code == "structure"
    assert str(caught.value) == "samples_to_schema: samples could not be read"


def test_any_iterable_of_samples_is_accepted() -> None:
    rows = ({"id": i} for i in range(3))
    assert samples_to_schema(rows) == closed({"id": INTEGER})
    assert samples_to_schema(({"id": 1},)) == closed({"id": INTEGER})
    assert samples_to_schema([]) == {}


def test_leaves_of_subclasses_and_tuples_read_as_their_plain_twins() -> None:
    class Whole(int):
        pass

    class Text(str):
        pass

    class Real(float):
        pass

    odd = {
        "a": Whole(3),
        "b": Text("x"),
        "c": Real(1.5),
        "d": (1, "y"),
        "e": Real("inf"),
        "f": datetime.date(2026, 1, 2),
        "g": True,
        "h": None,
        "i": object(),
    }
    plain = {
        "a": 3,
        "b": "x",
        "c": 1.5,
        "d": [1, "y"],
        "e": math.inf,
        "f": datetime.date(2026, 1, 3),
        "g": True,
        "h": None,
        "i": object(),
    }
    for options in ({}, {"format": True}):
        assert samples_to_schema([odd, plain], **options) == samples_to_schema([plain], **options)
        assert value_to_schema(odd, **options) == value_to_schema(plain, **options)


def test_a_mixed_slot_lists_each_record_shape_once_whatever_repeats_between() -> None:
    # Records of one slot with the same keys in the same order but other values, a non-string
    # key (an open record), an extra key, and repeats in between: each distinct one is listed.
    def closed(**properties: Any) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    records: list[dict[Any, Any]] = [
        {"a": {"x": 1}},
        {"a": {"x": "s"}},
        {"a": {"x": 1}},
        {"a": 3},
        {"a": {1: "n", "x": 1}},
        {"a": {"x": 1, "y": None}},
        {"a": {"x": 1}},
        {"a": {"x": "s"}},
    ]
    one_at_a_time = SchemaBuilder()
    for record in records:
        single = SchemaBuilder()
        single.add(record)
        one_at_a_time.merge(single)
    schema = samples_to_schema(records)
    assert schema == one_at_a_time.to_schema()
    assert schema["properties"]["a"]["anyOf"] == [
        closed(x={"type": "integer"}, y={"type": "null"}),
        closed(x={"type": "integer"}),
        closed(x={"type": "string"}),
        {**closed(x={"type": "integer"}), "additionalProperties": True},
        {"type": "integer"},
    ]


def test_dicts_are_read_whatever_their_storage() -> None:
    class Point:
        def __init__(self, x: int, label: str) -> None:
            self.x = x
            self.label = label

    class Key(str):
        pass

    holed = {"a": 1, "gone": "x", "b": None, "also gone": 2.5}
    del holed["gone"]
    holed.pop("also gone")
    shared = [Point(1, "p").__dict__, Point(2, "q").__dict__]
    twins: list[tuple[Any, Any]] = [
        (holed, {"a": 1, "b": None}),
        (shared[0], {"x": 1, "label": "p"}),
        ({Key("a"): 1, "b": "x"}, {"a": 1, "b": "x"}),
        (collections.OrderedDict(a=1, b=[True]), {"a": 1, "b": [True]}),
    ]
    for value, plain in twins:
        assert value_to_schema(value) == value_to_schema(plain)
        assert samples_to_schema([value, value]) == samples_to_schema([plain, plain])
    assert samples_to_schema(shared) == samples_to_schema([{"x": 1, "label": "p"}] * 2)
    opened = samples_to_schema([{1: "x", "a": 2}, {"a": 3, 2: None}])
    assert opened["additionalProperties"] is True
    assert opened["properties"] == {"a": {"type": "integer"}}
