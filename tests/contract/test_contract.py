"""The compiled contract: schema emission, the strict guard, the coercing parser and explain."""

from __future__ import annotations

import copy
import json
import math
import pickle
import sys
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import pytest

from orkestrel.contract import (
    Contract,
    ContractError,
    ParseError,
    array_shape,
    boolean_shape,
    create_contract,
    integer_shape,
    json_shape,
    literal_shape,
    null_shape,
    nullable_shape,
    number_shape,
    object_shape,
    one_of_shape,
    optional_shape,
    raw_shape,
    record_shape,
    string_shape,
)

UNDEFINED = object()


def parsed(contract: Contract, value: Any) -> Any:
    try:
        return contract.parse(value)
    except ParseError:
        return UNDEFINED


@pytest.fixture
def user() -> Contract:
    return create_contract(
        object_shape({"name": string_shape(min=1), "age": optional_shape(integer_shape(min=0))})
    )


def test_reference_user_contract(user: Contract) -> None:
    assert user.is_valid({"name": "Ada"})
    assert parsed(user, {"name": 5, "age": "7", "x": 1}) == {"name": "5", "age": 7}
    assert parsed(user, {"name": "", "age": 1}) is UNDEFINED
    assert user.explain({"name": "", "age": -1.5}) == [
        {
            "reason": "constraint",
            "path": ["name"],
            "expected": "string",
            "constraint": "min",
            "limit": 1,
            "received": '""',
        },
        {
            "reason": "constraint",
            "path": ["age"],
            "expected": "integer",
            "constraint": "integer",
            "received": "-1.5",
        },
        {
            "reason": "constraint",
            "path": ["age"],
            "expected": "integer",
            "constraint": "min",
            "limit": 0,
            "received": "-1.5",
        },
    ]
    assert user.explain({"age": "x"}) == [
        {"reason": "missing", "path": ["name"], "expected": "string"},
        {"reason": "type", "path": ["age"], "expected": "integer", "received": '"x"'},
    ]
    assert user.explain({"name": "a", "age": "z"}, ["root"]) == [
        {"reason": "type", "path": ["root", "age"], "expected": "integer", "received": '"z"'}
    ]


def test_parse_error_carries_the_explain_report(user: Contract) -> None:
    value = {"name": "", "age": "x"}
    with pytest.raises(ParseError) as caught:
        user.parse(value)
    assert caught.value.faults == user.explain(value)
    assert isinstance(caught.value, ValueError)
    assert "name" in str(caught.value)
    again = pickle.loads(pickle.dumps(caught.value))
    assert again.faults == caught.value.faults


@pytest.mark.parametrize(
    ("shape", "schema"),
    [
        (
            string_shape(min=1, pattern="^a$", description="d"),
            {"type": "string", "minLength": 1, "pattern": "^a$", "description": "d"},
        ),
        (object_shape({}), {"type": "object", "additionalProperties": False}),
        (
            object_shape({"a": optional_shape(integer_shape())}, additional_properties=True),
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}},
                "additionalProperties": True,
            },
        ),
        (nullable_shape(literal_shape(["x"])), {"anyOf": [{"enum": ["x"]}, {"type": "null"}]}),
        (
            one_of_shape(boolean_shape(), null_shape()),
            {"oneOf": [{"type": "boolean"}, {"type": "null"}]},
        ),
        (json_shape(), {}),
        (
            array_shape(number_shape(min=0, max=1), max=5),
            {
                "type": "array",
                "items": {"type": "number", "minimum": 0, "maximum": 1},
                "maxItems": 5,
            },
        ),
        (
            record_shape(integer_shape(min=0)),
            {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
        ),
        (raw_shape({"type": "string", "format": "uuid"}), {"type": "string", "format": "uuid"}),
    ],
)
def test_schema_emission(shape: Any, schema: dict[str, Any]) -> None:
    assert create_contract(shape).schema == schema


def test_emitted_keys_follow_javascript_order() -> None:
    shape = object_shape({"b": null_shape(), "1": null_shape(), "a": optional_shape(null_shape())})
    schema = create_contract(shape).schema
    assert list(schema) == ["type", "properties", "required", "additionalProperties"]
    assert list(schema["properties"]) == ["1", "b", "a"]
    assert schema["required"] == ["1", "b"]


def test_schema_is_a_fresh_copy_each_time() -> None:
    contract = create_contract(object_shape({"a": string_shape()}))
    first = contract.schema
    first["properties"]["a"]["type"] = "number"
    assert contract.schema["properties"]["a"] == {"type": "string"}
    assert contract.is_valid({"a": "x"})


def test_mutating_the_shape_after_compiling_changes_nothing() -> None:
    shape: Any = object_shape({"a": string_shape()})
    contract = create_contract(shape)
    shape["properties"]["a"] = {"type": "number"}
    assert contract.is_valid({"a": "x"})
    assert contract.shape == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_contract_is_frozen_picklable_and_printable() -> None:
    contract = create_contract(object_shape({"a": string_shape(pattern="^x")}))
    with pytest.raises(AttributeError):
        contract.schema = {}  # type: ignore[misc]
    clone = pickle.loads(pickle.dumps(contract))
    assert clone.schema == contract.schema
    assert clone.is_valid({"a": "xy"})
    assert not clone.is_valid({"a": "y"})
    assert repr(contract).startswith("Contract({'type': 'object'")
    assert copy.deepcopy(contract).schema == contract.schema


def test_closed_objects_drop_extras_and_open_ones_keep_them() -> None:
    closed = create_contract(object_shape({"id": string_shape()}))
    value = {"id": "a", "debug": True}
    assert not closed.is_valid(value)
    assert closed.parse(value) == {"id": "a"}
    assert closed.explain(value) == []
    opened = create_contract(object_shape({"id": string_shape()}, additional_properties=True))
    assert opened.is_valid(value)
    assert opened.parse(value) == value
    tail = create_contract(record_shape(integer_shape()))
    assert tail.parse({"b": "2", "5": 1}) == {"5": 1, "b": 2}
    assert tail.explain({"x": "a", "2": "b"}) == [
        {"reason": "type", "path": ["2"], "expected": "integer", "received": '"b"'},
        {"reason": "type", "path": ["x"], "expected": "integer", "received": '"a"'},
    ]


def test_parse_reuses_valid_leaves_and_builds_fresh_containers() -> None:
    text = "".join(["ab", "c"])
    items = [text, "d"]
    contract = create_contract(array_shape(string_shape()))
    out = contract.parse(items)
    assert out == items
    assert out is not items
    assert out[0] is text
    big = 10**30
    assert create_contract(number_shape()).parse(big) is big
    raw = {"any": [1]}
    for shape in (raw_shape({}), json_shape()):
        copied = create_contract(shape).parse(raw)
        assert copied == raw
        assert copied is not raw
        assert copied["any"] is not raw["any"]
    # What is not JSON data cannot be copied as JSON: where nothing checks it (a raw shape, an
    # open record's extra key), it is kept as the object given.
    strange = [math.inf, (1, 2)]
    assert create_contract(raw_shape({})).parse(strange) is strange
    loop: list[Any] = [1]
    loop.append(loop)
    assert create_contract(raw_shape({})).parse(loop) is loop
    opened = create_contract(object_shape({}, additional_properties=True))
    kept = opened.parse({"x": strange, "y": [1.5]})
    assert kept["x"] is strange
    assert kept["y"] == [1.5]


def test_parse_records_keep_declaration_order_and_come_back_fresh() -> None:
    contract = create_contract(
        object_shape(
            {
                "a": integer_shape(),
                "b": array_shape(string_shape()),
                "c": optional_shape(record_shape(json_shape())),
            }
        )
    )
    tags = ["x"]
    in_order = {"a": "1", "b": tags, "c": {"k": [1, {"z": 2}], "m": 3}}
    out = contract.parse(in_order)
    assert out == {"a": 1, "b": ["x"], "c": {"k": [1, {"z": 2}], "m": 3}}
    assert out is not in_order
    assert out["b"] is not tags
    assert out["b"][0] is tags[0]
    assert out["c"] is not in_order["c"]
    assert out["c"]["k"] is not in_order["c"]["k"]
    assert in_order["a"] == "1"  # the input is never written
    reordered = contract.parse({"b": [], "zz": 5, "a": 2})
    assert list(reordered) == ["a", "b"]
    holes = {"gone": 0, "a": 3, "b": []}
    del holes["gone"]
    assert list(contract.parse(holes)) == ["a", "b"]

    class Key(str):
        pass

    keyed = contract.parse({Key("a"): 4, "b": []})
    assert keyed == {"a": 4, "b": []}
    assert all(type(key) is str for key in keyed)
    record = create_contract(record_shape(integer_shape()))
    assert list(record.parse({"b": 1, "2": 2, "1": "3"})) == ["1", "2", "b"]


def test_fault_lists_are_capped_at_every_level() -> None:
    strings = create_contract(array_shape(string_shape(), max=3))
    faults = strings.explain([None] * 70)
    assert len(faults) == 64
    assert [fault["path"] for fault in faults] == [[str(i)] for i in range(64)]
    wide = create_contract(object_shape({f"k{i}": string_shape() for i in range(70)}))
    assert len(wide.explain({})) == 64
    short = create_contract(array_shape(string_shape(), min=3))
    assert short.explain([1]) == [
        {
            "reason": "constraint",
            "path": [],
            "expected": "array",
            "constraint": "min",
            "limit": 3,
            "received": "1",
        }
    ]


def test_nested_paths_use_decimal_indices() -> None:
    contract = create_contract(
        object_shape({"users": array_shape(object_shape({"name": string_shape()}))})
    )
    assert contract.explain({"users": [{"name": "a"}, {"name": None}]}) == [
        {"reason": "type", "path": ["users", "1", "name"], "expected": "string", "received": "null"}
    ]


def test_string_lengths_count_code_points_as_the_advertised_max_length_does() -> None:
    contract = create_contract(string_shape(max=2))
    assert contract.schema == {"type": "string", "maxLength": 2}
    assert contract.is_valid("😀😀")
    assert contract.parse("😀😀") == "😀😀"
    assert contract.explain("😀😀😀")[0]["constraint"] == "max"
    assert not create_contract(string_shape(min=2)).is_valid("😀")


def test_unicode_property_classes_match_as_json_schema_reads_them() -> None:
    letters = create_contract(string_shape(pattern=r"^\p{Letter}+$"))
    assert letters.is_valid("héllo")
    assert not letters.is_valid("p{Letter}")
    with pytest.raises(ContractError, match=r"Unicode property class \\p\{Nope\} is not supported"):
        string_shape(pattern=r"\p{Nope}")


def test_patterns_are_searched_in_the_javascript_dialect() -> None:
    digits = create_contract(string_shape(pattern=r"^\d+$"))
    assert digits.is_valid("123")
    assert not digits.is_valid("١٢٣")
    assert create_contract(string_shape(pattern="x")).is_valid("axb")
    coerced = create_contract(string_shape(pattern="^a+$"))
    assert parsed(coerced, 5) is UNDEFINED
    assert coerced.explain(5) == [
        {
            "reason": "constraint",
            "path": [],
            "expected": "string",
            "constraint": "pattern",
            "limit": "^a+$",
            "received": '"5"',
        }
    ]


def test_nullable_and_json() -> None:
    contract = create_contract(nullable_shape(string_shape()))
    assert contract.is_valid(None)
    assert contract.parse(None) is None
    json = create_contract(json_shape())
    assert json.is_valid({"a": [1, None, "x", True, 1.5]})
    assert not json.is_valid({"a": float("nan")})
    assert not json.is_valid((1, 2))
    assert json.explain({"a": {1, 2}}) == [
        {"reason": "type", "path": [], "expected": "json", "received": "object"}
    ]


def test_keys_and_literal_members_match_by_text_whatever_the_object() -> None:
    # Names written in source are the contract's interned objects (found by identity); keys
    # and members built at run time, decoded from JSON or of a str subclass match by text.
    class Text(str):
        pass

    built = "".join(["fa", "st"])
    assert built is not sys.intern("fast")
    mode = create_contract(literal_shape(["fast", "exact"]))
    for value in ("fast", built, Text("fast"), json.loads('"fast"')):
        assert mode.is_valid(value)
        assert mode.parse(value) == "fast"
    assert not mode.is_valid("slow")
    assert not mode.is_valid("fas")
    limit = create_contract(object_shape({"limit": integer_shape()}))
    for key in ("limit", "".join(["li", "mit"]), Text("limit")):
        assert limit.is_valid({key: 1})
        assert limit.parse({key: 1}) == {"limit": 1}
    assert limit.is_valid(json.loads('{"limit": 1}'))
    assert not limit.is_valid({"limit": 1, "limits": 2})
    assert not limit.is_valid({"limits": 1})


def test_raw_shape_keeps_annotation_keywords_verbatim() -> None:
    schema = {
        "type": "object",
        "title": "Pet",
        "default": {"kind": "cat", "tags": [1, None]},
        "examples": [{"kind": "dog"}],
        "deprecated": False,
        "$comment": "c",
        "x-order": [2, 1],
        "properties": {"kind": {"type": "string", "title": "Kind", "x-ui": {"w": 3}}},
    }
    contract = create_contract(raw_shape(schema))
    assert contract.schema == schema
    assert contract.is_valid("anything")


def test_raw_shape_refuses_assertions_and_non_json_annotations() -> None:
    for schema in ({"const": 1}, {"$ref": "#/$defs/a"}, {"multipleOf": 2}):
        with pytest.raises(ContractError, match="unsupported keyword"):
            raw_shape(schema)
    with pytest.raises(ContractError, match="annotations must be JSON data"):
        raw_shape({"default": math.inf})
    deep: list[Any] = []
    for _ in range(600):
        deep = [deep]
    with pytest.raises(ContractError, match="annotations must be JSON data"):
        raw_shape({"examples": deep})


def test_a_missing_union_says_a_required_value_is_missing() -> None:
    from orkestrel.contract import number_shape, object_shape, string_shape, union_shape

    contract = create_contract(object_shape({"key": union_shape(string_shape(), number_shape())}))
    with pytest.raises(ParseError) as caught:
        contract.parse({})
    assert str(caught.value).endswith("key: missing (a required value)")


class Point:
    def __init__(self) -> None:
        self.x = 1


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ((1, 2), "tuple"),
        ({1, 2}, "set"),
        (b"{}", "bytes"),
        (MappingProxyType({"a": 1}), "mappingproxy"),
        (Point(), "Point"),
        (Decimal("1.5"), "Decimal"),
    ],
)
def test_a_value_that_is_not_json_is_named_by_its_python_type(value: Any, name: str) -> None:
    record = create_contract(object_shape({"items": array_shape(integer_shape())}))
    with pytest.raises(ParseError) as refused:
        record.parse(value)
    assert str(refused.value).endswith(f"<root>: expected object, received {name}")
    assert record.explain({"items": value}) == [
        {"reason": "type", "path": ["items"], "expected": "array", "received": name}
    ]


@pytest.mark.parametrize("value", [object(), {1: "x"}], ids=["object", "int-key"])
def test_an_object_that_is_not_a_string_keyed_dict_says_so(value: Any) -> None:
    with pytest.raises(ParseError) as refused:
        create_contract(object_shape({})).parse(value)
    assert str(refused.value).endswith(
        "<root>: expected object (a dict with string keys), received an object that is not one"
    )
