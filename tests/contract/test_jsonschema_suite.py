"""`schema_to_shape` only widens, judged by the official JSON-Schema-Test-Suite: no value a
suite schema accepts is refused by `create_contract(schema_to_shape(schema))`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from orkestrel.contract import create_contract, schema_to_shape
from support.jsonschema_suite import FOLDERS, accepts, table, tally

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "contract.md"


@pytest.mark.parametrize("folder", FOLDERS)
def test_no_valid_suite_value_is_refused(folder: str) -> None:
    refused = [case.description for case in tally(folder).refused_valid]
    assert refused == []


def test_guide_table_of_accepted_invalid_values_is_current() -> None:
    assert table() in GUIDE.read_text(encoding="utf-8")


def test_one_of_with_required_only_variants_accepts_either() -> None:
    schema = {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    contract = create_contract(schema_to_shape(schema))
    assert contract.is_valid({"a": 1})
    assert contract.parse({"b": 2}) == {"b": 2}
    assert not contract.is_valid("a")


def test_pydantic_discriminated_union_accepts_its_members() -> None:
    schema = {
        "$defs": {
            "Cat": {
                "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}},
                "required": ["kind", "lives"],
                "type": "object",
            },
            "Dog": {
                "properties": {"kind": {"const": "dog"}},
                "required": ["kind"],
                "type": "object",
            },
        },
        "properties": {
            "pet": {
                "discriminator": {"propertyName": "kind"},
                "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
            }
        },
        "required": ["pet"],
        "type": "object",
    }
    assert accepts(schema, {"pet": {"kind": "cat", "lives": 9}})
    assert accepts(schema, {"pet": {"kind": "dog"}})


def test_one_of_keeps_exclusivity_when_variants_cannot_overlap() -> None:
    shape = schema_to_shape({"oneOf": [{"type": "string"}, {"enum": [1, 2]}, {"enum": [3]}]})
    assert shape.get("mode") == "oneOf"
    contract = create_contract(shape)
    assert contract.is_valid("x")
    assert contract.is_valid(3)
    assert not contract.is_valid(4)


def test_sibling_keywords_of_a_union_are_kept() -> None:
    contract = create_contract(
        schema_to_shape({"type": "integer", "minimum": 2, "oneOf": [{"maximum": 5}, {}]})
    )
    assert contract.is_valid(3)
    assert not contract.is_valid("x")
    assert not contract.is_valid(1)


def test_pattern_property_keys_are_not_additional() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "patternProperties": {"^x-": {"type": "string"}},
        "additionalProperties": False,
    }
    contract = create_contract(schema_to_shape(schema))
    assert contract.is_valid({"a": 1, "x-b": "y"})
    assert contract.parse({"a": 1, "x-b": "y"}) == {"a": 1, "x-b": "y"}


def test_object_keywords_without_type_accept_non_objects() -> None:
    contract = create_contract(schema_to_shape({"properties": {"a": {"type": "string"}}}))
    assert all(contract.is_valid(v) for v in (12, "s", None, True, [1]))
    assert not contract.is_valid({"a": 1})


def test_prefix_items_leave_their_positions_to_themselves() -> None:
    schema = {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}
    assert accepts(schema, ["a", 1, 2])


def test_enum_with_containers_accepts_them() -> None:
    assert accepts({"enum": [[], {"foo": 12}, 1]}, {"foo": 12})
    assert accepts({"enum": [[], {"foo": 12}, 1]}, [])


def test_nested_unions_with_siblings_convert_within_the_node_limit() -> None:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(30):
        schema = {"type": "object", "oneOf": [schema, schema]}
    started = time.perf_counter()
    shape = schema_to_shape(schema)
    assert time.perf_counter() - started < 5
    assert shape["type"] == "union"
