"""Helpers: previews, ECMAScript number text, JSON data, clones, attempt, schema wrappers."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.contract import (
    CLONE_NODE_LIMIT,
    COMPILE_DEPTH_LIMIT,
    COMPILE_NODE_LIMIT,
    FAULT_LIMIT,
    GENERATION_ATTEMPT_LIMIT,
    GUARD_DEPTH_LIMIT,
    INFER_BREADTH_LIMIT,
    INFER_DEPTH_LIMIT,
    JSON_SCHEMA_TYPES,
    PREVIEW_LIMIT,
    ContractError,
    ParseError,
    attempt,
    clone_json_record,
    clone_json_value,
    is_json_value,
    number_to_string,
    parse_json_value,
    preview,
    schema_to_object,
    schema_to_parameters,
)
from orkestrel.contract.helpers import number_to_string as helper_number
from orkestrel.contract.helpers import preview as helper_preview


def test_constants() -> None:
    assert (FAULT_LIMIT, PREVIEW_LIMIT, GUARD_DEPTH_LIMIT, COMPILE_DEPTH_LIMIT) == (
        64,
        64,
        512,
        512,
    )
    assert (COMPILE_NODE_LIMIT, CLONE_NODE_LIMIT, GENERATION_ATTEMPT_LIMIT) == (16384, 262144, 32)
    assert (INFER_DEPTH_LIMIT, INFER_BREADTH_LIMIT) == (32, 256)
    assert JSON_SCHEMA_TYPES == (
        "null",
        "boolean",
        "object",
        "array",
        "number",
        "integer",
        "string",
    )


def test_helpers_module_keeps_the_rust_versions() -> None:
    assert helper_preview is preview
    assert helper_number is number_to_string


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (5.0, "5"),
        (5, "5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (0.000001, "0.000001"),
        (5e-324, "5e-324"),
        (-0.0, "0"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        (2**53 + 1, "9007199254740992"),
        (10**400, "Infinity"),
        (-(10**400), "-Infinity"),
        (123456.789, "123456.789"),
    ],
)
def test_number_to_string(value: float, text: str) -> None:
    assert number_to_string(value) == text


def test_number_to_string_refuses_non_numbers() -> None:
    with pytest.raises(TypeError):
        number_to_string("5")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (float("inf"), "Infinity"),
        (-0.0, "0"),
        ([1], "array"),
        ({"a": 1}, "object"),
        ((1,), "tuple"),
        (object(), "object"),
        (print, "function"),
        ("a\nb", '"a\\nb"'),
        ("\x01", '"\\u0001"'),
        ("\ud800", '"\\ud800"'),
        ("a" * 62, '"' + "a" * 62 + '"'),
        ("a" * 63, '"' + "a" * 63 + "…"),
        ("😀" * 40, '"' + "😀" * 31 + "…"),
    ],
)
def test_preview(value: Any, text: str) -> None:
    assert preview(value) == text


def test_attempt_keeps_values_and_errors_untouched() -> None:
    assert attempt(lambda: 1) == {"success": True, "value": 1}
    error = ValueError("x")

    def fail() -> None:
        raise error

    outcome = attempt(fail)
    assert outcome["success"] is False
    assert outcome["error"] is error


def test_json_values() -> None:
    assert is_json_value({"a": [1, None, "x", 1.5, True]})
    shared = [1]
    assert is_json_value({"a": shared, "b": shared})
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    for bad in (cyclic, float("nan"), {1: 2}, (1,), {"a": {1}}, [float("inf")]):
        assert not is_json_value(bad)
    value = {"a": [1, None]}
    assert parse_json_value(value) is value
    with pytest.raises(ParseError) as caught:
        parse_json_value(cyclic)
    assert caught.value.faults == [
        {"reason": "type", "path": [], "expected": "json", "received": "array"}
    ]


def test_clones_are_fresh_and_duplicate_aliases() -> None:
    shared = {"c": None}
    source = {"b": [1], "a": shared, "d": shared}
    clone = clone_json_record(source)
    assert clone == source
    assert clone["a"] is not shared
    assert clone["a"] is not clone["d"]
    assert clone_json_value([1, "x"]) == [1, "x"]


@pytest.mark.parametrize(
    ("call", "value", "message"),
    [
        (clone_json_record, [1], "clone_json_record: value is not a plain record"),
        (clone_json_value, float("nan"), "clone_json_value: number is not finite"),
        (clone_json_value, print, "clone_json_value: value is not JSON data"),
        (clone_json_value, [print], "clone_json_value: property is not JSON data"),
        (clone_json_value, {1: 2}, "clone_json_value: record has a key that is not a string"),
        (clone_json_value, object(), "clone_json_value: object is not a plain record"),
    ],
)
def test_clone_refusals(call: Any, value: Any, message: str) -> None:
    with pytest.raises(ContractError) as caught:
        call(value)
    assert (caught.value.code, caught.value.message) == ("clone", message)
    assert caught.value.context == {"shape": "json"}


def test_clone_refuses_cycles_and_oversized_snapshots() -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    with pytest.raises(ContractError, match="cycle detected"):
        clone_json_value(cyclic)
    shared = [0] * 1000
    with pytest.raises(ContractError, match="node limit"):
        clone_json_value([shared] * 300)


def test_schema_to_object_and_parameters() -> None:
    schema = {"type": "object", "properties": {}}
    assert schema_to_object(schema) is schema
    assert schema_to_object({"type": "string"}) == {
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "required": ["value"],
        "additionalProperties": False,
    }
    assert schema_to_object(5)["properties"] == {"value": 5}
    with pytest.raises(ContractError, match="schema could not be read"):
        schema_to_object(None)
    assert schema_to_parameters(schema) is schema
    assert schema_to_parameters([1]) is None
    with pytest.raises(ContractError, match="value could not be read"):
        schema_to_parameters(None)
