"""Coercion in `parse` and `explain`: strings, numbers, booleans, literals and unions."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from orkestrel.contract import (
    Contract,
    ParseError,
    array_shape,
    boolean_shape,
    create_contract,
    integer_shape,
    literal_shape,
    null_shape,
    number_shape,
    object_shape,
    one_of_shape,
    optional_shape,
    string_shape,
    union_shape,
)

UNDEFINED = object()


def parsed(contract: Contract, value: Any) -> Any:
    try:
        return contract.parse(value)
    except ParseError:
        return UNDEFINED


@pytest.mark.parametrize(
    ("value", "result"),
    [
        ("hi", "hi"),
        (42, "42"),
        (1e21, "1e+21"),
        (5.0, "5"),
        (-0.0, "0"),
        (True, UNDEFINED),
        (None, UNDEFINED),
        (float("nan"), UNDEFINED),
        (1e-7, "1e-7"),
    ],
)
def test_string_coercion(value: Any, result: Any) -> None:
    assert parsed(create_contract(string_shape()), value) == result


@pytest.mark.parametrize(
    ("value", "result"),
    [
        (" 42 ", 42),
        ("0x1A", 26),
        ("0b101", 5),
        ("0o17", 15),
        ("5.", 5),
        (".5", 0.5),
        ("+5", 5),
        ("\u00a042\ufeff", 42),
        ("", UNDEFINED),
        ("  ", UNDEFINED),
        ("1_000", UNDEFINED),
        ("inf", UNDEFINED),
        ("nan", UNDEFINED),
        ("Infinity", UNDEFINED),
        ("-0x10", UNDEFINED),
        ("1e400", UNDEFINED),
        ("\u0085 1", UNDEFINED),
        (True, UNDEFINED),
        (None, UNDEFINED),
    ],
)
def test_number_coercion(value: Any, result: Any) -> None:
    assert parsed(create_contract(number_shape()), value) == result


def test_negative_zero_survives() -> None:
    out = create_contract(number_shape()).parse("-0")
    assert out == 0
    assert str(out) == "-0.0"


@pytest.mark.parametrize(
    ("value", "result"),
    [("4.0", 4), ("1e21", 10**21), ("4.5", UNDEFINED), (3.14, UNDEFINED), (2.0, 2.0)],
)
def test_integer_coercion(value: Any, result: Any) -> None:
    out = parsed(create_contract(integer_shape()), value)
    assert out == result
    if isinstance(value, str) and result is not UNDEFINED:
        assert type(out) is int


@pytest.mark.parametrize(
    ("value", "result"),
    [
        ("1", True),
        ("true", True),
        (1, True),
        (1.0, True),
        ("0", False),
        ("false", False),
        (0, False),
        (-0.0, False),
        ("TRUE", UNDEFINED),
        ("yes", UNDEFINED),
        (" true", UNDEFINED),
        (2, UNDEFINED),
    ],
)
def test_boolean_coercion(value: Any, result: Any) -> None:
    assert parsed(create_contract(boolean_shape()), value) == result


def test_bool_is_never_a_number_and_two_point_zero_is_an_integer() -> None:
    numbers = create_contract(number_shape())
    assert not numbers.is_valid(True)
    assert parsed(numbers, True) is UNDEFINED
    assert create_contract(integer_shape()).is_valid(2.0)
    assert not create_contract(literal_shape([1])).is_valid(True)
    assert create_contract(literal_shape([0])).is_valid(-0.0)


def test_literal_parse_trims_but_never_coerces() -> None:
    contract = create_contract(literal_shape(["a", 1, True]))
    assert parsed(contract, " a\n") == "a"
    assert parsed(contract, "1") is UNDEFINED
    assert parsed(contract, "true") is UNDEFINED
    assert contract.explain("b") == [
        {"reason": "type", "path": [], "expected": "literal", "received": '"b"'}
    ]


@pytest.mark.parametrize(
    ("variants", "value", "result"),
    [
        ((boolean_shape(), integer_shape()), "1", True),
        ((integer_shape(), boolean_shape()), "1", 1),
        ((integer_shape(), boolean_shape()), "true", True),
        ((integer_shape(), string_shape(min=2)), 5.5, "5.5"),
        ((integer_shape(), string_shape(min=2)), "5", 5),
    ],
)
def test_union_order_matters(variants: Any, value: Any, result: Any) -> None:
    assert parsed(create_contract(union_shape(*variants)), value) == result


def test_one_of_needs_exactly_one_strict_match() -> None:
    contract = create_contract(one_of_shape(number_shape(), integer_shape()))
    assert not contract.is_valid(3)
    assert contract.is_valid(3.5)
    assert parsed(contract, "3") is UNDEFINED
    assert contract.explain(3) == [{"reason": "oneOf", "path": [], "matched": 2}]
    assert contract.explain("x") == [
        {"reason": "oneOf", "path": [], "matched": 0},
        {"reason": "type", "path": [], "expected": "number", "received": '"x"'},
    ]


def test_any_of_reports_the_closest_variant() -> None:
    contract = create_contract(union_shape(object_shape({"a": string_shape()}), null_shape()))
    assert contract.explain({"a": 1, "b": 2}) == []
    assert contract.explain(5) == [
        {"reason": "variant", "path": [], "variants": 2},
        {"reason": "type", "path": [], "expected": "object", "received": "5"},
    ]


RECORD = create_contract(
    object_shape(
        {
            "n": number_shape(),
            "s": string_shape(),
            "tags": optional_shape(array_shape(string_shape())),
            "inner": optional_shape(object_shape({"n": number_shape()})),
        }
    )
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"n": "2", "s": "x"}, {"n": 2, "s": "x"}),
        ({"n": "2", "s": "x", "tags": ["a"]}, {"n": 2, "s": "x", "tags": ["a"]}),
        ({"inner": {"n": "3"}, "n": 2.5, "s": "x"}, {"inner": {"n": 3}, "n": 2.5, "s": "x"}),
    ],
)
def test_a_parsed_record_replaces_values_in_its_copy_and_stays_collectable(
    value: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = repr(value)
    out = RECORD.parse(value)
    assert out == expected
    assert list(out) == [key for key in ("n", "s", "tags", "inner") if key in value]
    assert repr(value) == before
    for key in ("tags", "inner"):
        if key in out:
            assert out[key] is not value[key]
    # A record holding a container must be seen by the cycle collector.
    if any(isinstance(item, (list, dict)) for item in out.values()):
        assert gc.is_tracked(out)
