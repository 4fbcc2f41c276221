"""Shape builders and the declaration gate: output data, first-failure order, codes, contexts."""

from __future__ import annotations

import re
from typing import Any

import pytest

from orkestrel.contract import (
    ContractError,
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
    union_shape,
    validate_shape,
)


def refusal(call: Any, *args: Any, **kwargs: Any) -> ContractError:
    with pytest.raises(ContractError) as caught:
        call(*args, **kwargs)
    return caught.value


def test_builders_return_plain_data_without_unset_options() -> None:
    assert string_shape(min=1, max=3) == {"type": "string", "min": 1, "max": 3}
    assert string_shape() == {"type": "string"}
    assert integer_shape(min=0) == {"type": "number", "min": 0, "integer": True}
    assert literal_shape(["a", 1, True], description="d") == {
        "type": "literal",
        "values": ["a", 1, True],
        "description": "d",
    }
    assert record_shape(boolean_shape()) == {
        "type": "object",
        "properties": {},
        "additionalProperties": {"type": "boolean"},
    }
    assert one_of_shape(string_shape()) == {
        "type": "union",
        "variants": [{"type": "string"}],
        "mode": "oneOf",
    }
    assert union_shape(null_shape()) == {"type": "union", "variants": [{"type": "null"}]}
    assert nullable_shape(null_shape()) == {"type": "nullable", "inner": {"type": "null"}}
    assert json_shape(description="any") == {"type": "json", "description": "any"}
    assert optional_shape(null_shape()) == {"type": "optional", "inner": {"type": "null"}}
    assert raw_shape({"type": "string", "format": "uuid"}) == {
        "type": "raw",
        "schema": {"type": "string", "format": "uuid"},
    }
    assert string_shape(pattern="^a") == {"type": "string", "pattern": "^a"}


def test_raw_shape_keeps_its_own_copy() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    shape = raw_shape(schema)
    schema["properties"]["a"]["type"] = "number"
    assert shape["schema"]["properties"]["a"] == {"type": "string"}


def test_a_compiled_pattern_without_flags_is_stored_by_source() -> None:
    assert string_shape(pattern=re.compile("^a+$")) == {"type": "string", "pattern": "^a+$"}
    error = refusal(string_shape, pattern=re.compile("^a$", re.IGNORECASE))
    assert error.code == "pattern"
    assert error.context == {"shape": "string", "received": "/^a$/i"}


@pytest.mark.parametrize(
    ("call", "code", "message", "context"),
    [
        (
            lambda: string_shape(min=3, max=1),
            "range",
            "validate_shape: a string shape has min greater than max",
            {"path": [], "shape": "string"},
        ),
        (
            lambda: string_shape(min=1.5),
            "bound",
            "string_shape: min must be a non-negative safe integer",
            {"shape": "string", "limit": "non-negative safe integer", "received": "1.5"},
        ),
        (
            lambda: string_shape(max=-1),
            "bound",
            "string_shape: max must be a non-negative safe integer",
            {"shape": "string", "limit": "non-negative safe integer", "received": "-1"},
        ),
        (
            lambda: string_shape(pattern=5),
            "pattern",
            "string_shape: pattern must be a string",
            {"shape": "string", "received": "5"},
        ),
        (
            lambda: number_shape(min=float("nan")),
            "bound",
            "number_shape: min must be finite",
            {"shape": "number", "limit": "finite number", "received": "NaN"},
        ),
        (
            lambda: integer_shape(max=float("inf")),
            "bound",
            "integer_shape: max must be finite",
            {"shape": "integer", "limit": "finite number", "received": "Infinity"},
        ),
        (
            lambda: number_shape(integer="yes"),  # type: ignore[arg-type]
            "structure",
            "validate_shape: number integer must be a boolean",
            {"path": ["integer"]},
        ),
        (
            lambda: number_shape(min=2, max=1),
            "range",
            "validate_shape: a number shape has min greater than max",
            {"path": [], "shape": "number"},
        ),
        (
            lambda: integer_shape(min=1.5, max=1.6),
            "range",
            "validate_shape: an integer number shape has an empty integer range",
            {"path": [], "shape": "integer"},
        ),
        (
            lambda: literal_shape([0, -0.0]),
            "structure",
            "validate_shape: literal values must be unique",
            {"path": ["values", "1"]},
        ),
        (
            lambda: literal_shape([]),
            "empty",
            "validate_shape: a literal shape needs at least one value",
            {"path": [], "shape": "literal"},
        ),
        (
            lambda: literal_shape([None]),  # type: ignore[list-item]
            "structure",
            "literal_shape: every value must be a string, number, or boolean",
            {"path": ["values", "0"], "shape": "literal"},
        ),
        (
            lambda: literal_shape("ab"),
            "structure",
            "literal_shape: values must be an array",
            {"path": ["values"], "shape": "literal"},
        ),
        (
            lambda: literal_shape([float("nan")]),
            "literal",
            "validate_shape: a literal shape may not contain non-finite number values",
            {"path": [], "shape": "literal", "received": "NaN"},
        ),
        (
            lambda: array_shape(string_shape(), min=2, max=1),
            "range",
            "validate_shape: an array shape has min greater than max",
            {"path": [], "shape": "array"},
        ),
        (
            lambda: array_shape("x"),  # type: ignore[arg-type]
            "structure",
            "validate_shape: every structural child must be a shape",
            {"path": ["items"]},
        ),
        (
            lambda: array_shape(string_shape(), max=2**60),
            "bound",
            "array_shape: max must be a non-negative safe integer",
            {
                "shape": "array",
                "limit": "non-negative safe integer",
                "received": "1152921504606847000",
            },
        ),
        (
            lambda: object_shape([]),  # type: ignore[arg-type]
            "structure",
            "object_shape: properties must be a plain record",
            {"path": ["properties"], "shape": "object"},
        ),
        (
            lambda: object_shape({"a": 1}),  # type: ignore[dict-item]
            "structure",
            "validate_shape: every structural child must be a shape",
            {"path": ["properties", "a"]},
        ),
        (
            lambda: object_shape(
                {"a": string_shape()}, additional_properties=optional_shape(string_shape())
            ),
            "placement",
            "validate_shape: an optional shape may only appear as a direct object-property value",
            {"path": ["additionalProperties"], "shape": "optional"},
        ),
        (
            lambda: union_shape(optional_shape(string_shape())),
            "placement",
            "validate_shape: an optional shape may only appear as a direct object-property value",
            {"path": ["variants", "0"], "shape": "optional"},
        ),
        (
            lambda: record_shape(True),  # type: ignore[arg-type]
            "structure",
            "record_shape: values must be a shape",
            {"path": ["additionalProperties"], "shape": "object"},
        ),
        (
            lambda: union_shape(),
            "empty",
            "validate_shape: a union shape needs at least one variant",
            {"path": [], "shape": "union"},
        ),
        (
            lambda: boolean_shape(description=5),  # type: ignore[arg-type]
            "structure",
            "validate_shape: description must be a string",
            {"path": ["description"]},
        ),
        (
            lambda: raw_shape({"type": "object", "properties": {"a": True}}),
            "structure",
            "validate_shape: every raw schema child must be a plain record",
            {"path": ["schema"]},
        ),
        (
            lambda: raw_shape({"minimum": "1"}),
            "structure",
            "validate_shape: raw schema numeric bounds must be finite numbers",
            {"path": ["schema"]},
        ),
        (
            lambda: raw_shape({"const": "x"}),
            "structure",
            "validate_shape: raw schema contains an unsupported keyword",
            {"path": ["schema"]},
        ),
        (
            lambda: raw_shape({"type": ["string", "null"]}),
            "structure",
            "validate_shape: raw schema type is outside the supported vocabulary",
            {"path": ["schema"]},
        ),
        (
            lambda: raw_shape({"enum": [1, 1.0]}),
            "structure",
            "validate_shape: raw schema enum values must be finite unique primitives",
            {"path": ["schema"]},
        ),
        (
            lambda: raw_shape({"pattern": "("}),
            "structure",
            "validate_shape: raw schema pattern must be valid",
            {"path": ["schema"]},
        ),
        (
            lambda: validate_shape({"type": "object", "properties": {"a": {"type": "wat"}}}),
            "structure",
            "validate_shape: every node must be a recognized shape",
            {"path": ["properties", "a"]},
        ),
    ],
)
def test_refusals_carry_code_message_and_context(
    call: Any, code: str, message: str, context: dict[str, Any]
) -> None:
    error = refusal(call)
    assert (error.code, error.message, error.context) == (code, message, context)


def test_raw_schema_patterns_need_only_be_valid_ecmascript() -> None:
    assert raw_shape({"pattern": "(?=a)b"})["schema"] == {"pattern": "(?=a)b"}


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(?=a)", "look-around"),
        ("(?<!a)b", "look-around"),
        (r"(a)\1", "backreferences"),
        ("(", "unterminated group"),
        ("a**", "nothing to repeat"),
    ],
)
def test_patterns_the_engine_cannot_run_are_pattern_errors(pattern: str, reason: str) -> None:
    error = refusal(string_shape, pattern=pattern)
    assert error.code == "pattern"
    assert reason in error.message
    assert error.context is not None
    assert error.context["shape"] == "string"


def test_optional_is_legal_only_as_a_property_value() -> None:
    inner = optional_shape(string_shape())
    assert create_contract(object_shape({"a": inner})).is_valid({})
    expected = {"path": [], "shape": "optional"}
    assert (refusal(create_contract, inner).code, refusal(create_contract, inner).context) == (
        "placement",
        expected,
    )
    for build, path in [(array_shape, ["items"]), (nullable_shape, ["inner"])]:
        error = refusal(build, inner)
        assert (error.code, error.context) == ("placement", {"path": path, "shape": "optional"})


def test_precedence_is_depth_structure_cycle_then_domain() -> None:
    domain_then_structure = {
        "type": "object",
        "properties": {"a": {"type": "string", "min": 3, "max": 1}, "b": {"type": "wat"}},
    }
    assert refusal(validate_shape, domain_then_structure).code == "structure"
    cyclic: dict[str, Any] = {"type": "array", "items": {"type": "string", "min": -1}}
    cyclic["items"] = {"type": "union", "variants": [cyclic, {"type": "string", "min": -1}]}
    assert refusal(validate_shape, cyclic).code == "cycle"
    deep: dict[str, Any] = {"type": "wat"}
    for _ in range(600):
        deep = {"type": "array", "items": deep}
    error = refusal(validate_shape, deep)
    assert error.code == "depth"
    assert error.context is not None
    assert error.context["limit"] == 512
    assert error.context["path"] == ["items"] * 513


def test_height_512_passes_and_513_fails() -> None:
    shape: dict[str, Any] = {"type": "null"}
    for _ in range(512):
        shape = {"type": "array", "items": shape}
    assert create_contract(shape).is_valid(None) is False
    assert refusal(create_contract, {"type": "array", "items": shape}).code == "depth"


def test_expansion_counts_every_edge_of_a_shared_graph() -> None:
    shape: dict[str, Any] = {"type": "null"}
    for _ in range(13):
        shape = {"type": "union", "variants": [shape, shape]}
    assert create_contract(shape).is_valid(None)
    error = refusal(create_contract, {"type": "union", "variants": [shape, shape]})
    assert error.code == "expansion"
    assert error.context == {"path": [], "limit": 16384, "received": "32767"}


def test_shared_children_are_allowed_and_stay_shared() -> None:
    leaf = string_shape()
    shape = object_shape({"a": leaf, "b": leaf})
    contract = create_contract(shape)
    assert contract.is_valid({"a": "x", "b": "y"})
    emitted = contract.shape
    assert emitted["properties"]["a"] is emitted["properties"]["b"]


def test_unknown_fields_on_a_hand_authored_node_are_ignored() -> None:
    assert validate_shape({"type": "string", "label": 1}) == {"type": "string"}
