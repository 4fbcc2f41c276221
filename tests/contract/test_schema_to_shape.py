"""`schema_to_shape`: widening only, depth 32, the 256 caps, and the reference examples."""

from __future__ import annotations

from typing import Any

from orkestrel.contract import ParseError, create_contract, schema_to_shape


def run(schema: Any, values: list[Any]) -> tuple[Any, list[tuple[bool, Any, Any]]]:
    contract = create_contract(schema_to_shape(schema))
    rows = []
    for value in values:
        try:
            parsed = contract.parse(value)
        except ParseError:
            parsed = ParseError
        rows.append((contract.is_valid(value), parsed, contract.explain(value)))
    return contract.schema, rows


def test_string_bounds_kept_and_format_ignored() -> None:
    schema, rows = run({"type": "string", "minLength": 2, "format": "email"}, ["ab", 7])
    assert schema == {"type": "string", "minLength": 2}
    assert rows[0] == (True, "ab", [])
    assert rows[1][1] is ParseError


def test_enum_keeps_null_and_trims() -> None:
    schema, rows = run({"enum": ["a", 1, None]}, ["a", None, " a", "b"])
    assert schema == {"anyOf": [{"enum": ["a", 1]}, {"type": "null"}]}
    assert rows[1] == (True, None, [])
    assert rows[2] == (False, "a", [])
    assert rows[3][1] is ParseError


def test_integer_bounds_and_empty_ranges() -> None:
    schema, rows = run({"type": "integer", "minimum": 1, "maximum": 3}, ["2", 4])
    assert schema == {"type": "integer", "minimum": 1, "maximum": 3}
    assert rows[0] == (False, 2, [])
    assert rows[1][2][0]["constraint"] == "max"
    assert run({"type": "integer", "minimum": 1.5, "maximum": 1.6}, [])[0] == {"type": "integer"}


def test_object_without_additional_properties_is_open() -> None:
    schema, rows = run(
        {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        [{"id": "3", "x": 1}],
    )
    assert schema["additionalProperties"] is True
    assert rows[0] == (False, {"id": 3, "x": 1}, [])


def test_unknown_and_type_arrays_become_raw() -> None:
    assert run({"type": ["string", "null"]}, [5])[0] == {}
    assert run({"$ref": "#/x", "description": "d"}, [])[0] == {"description": "d"}
    assert run(True, [])[0] == {}


def test_one_of_is_read_first_carries_any_of_and_unions_drop_descriptions() -> None:
    schema, _ = run(
        {"oneOf": [{"type": "string"}], "anyOf": [{"type": "null"}], "description": "d"}, []
    )
    assert schema == {"oneOf": [{"anyOf": [{"type": "null"}]}]}


def test_depth_budget_is_32() -> None:
    def nested(levels: int) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "string"}
        for _ in range(levels):
            schema = {"type": "array", "items": schema}
        return schema

    def innermost(schema: dict[str, Any]) -> Any:
        while "items" in schema:
            schema = schema["items"]
        return schema

    assert innermost(run(nested(31), [])[0]) == {"type": "string"}
    assert innermost(run(nested(32), [])[0]) == {}


def test_breadth_caps_widen() -> None:
    many = {f"k{i}": {"type": "string"} for i in range(257)}
    schema, _ = run({"type": "object", "properties": many, "additionalProperties": False}, [])
    assert len(schema["properties"]) == 256
    assert schema["additionalProperties"] is True
    variants = [{"type": "string"}] * 257
    assert run({"anyOf": variants}, [])[0] == {}


def test_bounds_are_dropped_when_inverted() -> None:
    assert run({"type": "string", "minLength": 10, "maxLength": 1}, [])[0] == {"type": "string"}
    assert run({"type": "number", "minimum": -1.5, "maximum": float("nan")}, [])[0] == {
        "type": "number",
        "minimum": -1.5,
    }


def test_cycles_and_shared_nodes() -> None:
    cyclic: dict[str, Any] = {"type": "array"}
    cyclic["items"] = cyclic
    assert run(cyclic, [])[0] == {"type": "array", "items": {}}
    leaf = {"type": "string"}
    shape = schema_to_shape({"type": "object", "properties": {"a": leaf, "b": leaf}})
    assert shape["properties"]["a"]["inner"] is shape["properties"]["b"]["inner"]
