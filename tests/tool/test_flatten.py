"""`flatten_parameters`: a root union of object schemas becomes one object schema."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orkestrel.contract import create_contract
from orkestrel.tool import flatten_parameters
from orkestrel.toolbox import database_tool_shape, relation_tool_shape, workspace_tool_shape
from support.schema_values import values

TOP_LEVEL_REFUSED = ("anyOf", "oneOf", "allOf", "enum", "not", "const")


def arm(operation: str, required: list[str], **fields: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"operation": {"enum": [operation], "description": f"Do {operation}."}}
        | fields,
        "required": ["operation", *required],
        "additionalProperties": False,
    }


UNION = {
    "anyOf": [
        arm("read", ["path"], path={"type": "string", "description": "A path."}),
        arm(
            "write",
            ["path", "content"],
            path={"type": "string", "description": "A path."},
            content={"type": "string"},
        ),
        arm("seek", [], path={"type": "integer", "minimum": 0}),
    ]
}


def test_a_discriminated_union_becomes_one_object_with_an_operation_enum() -> None:
    flat = flatten_parameters(UNION)
    assert flat["type"] == "object"
    assert not any(keyword in flat for keyword in TOP_LEVEL_REFUSED)
    assert flat["required"] == ["operation"]
    assert flat["additionalProperties"] is False
    operation = flat["properties"]["operation"]
    assert operation["type"] == "string"
    assert operation["enum"] == ["read", "write", "seek"]
    # Each operation's own fields beyond those every arm requires; seek requires none.
    assert operation["description"] == "Needs: read(path) write(path,content)"
    assert list(flat["properties"]) == ["operation", "path", "content"]


def test_a_field_keeps_its_most_common_wording_and_types_that_differ_nest_an_any_of() -> None:
    flat = flatten_parameters(UNION)
    path = flat["properties"]["path"]
    assert path["anyOf"] == [{"type": "string"}, {"type": "integer", "minimum": 0}]
    assert path["description"] == "A path."
    assert flat["properties"]["content"] == {"type": "string"}


def test_no_wording_wins_when_most_arms_leave_a_field_undescribed() -> None:
    union = {
        "anyOf": [
            arm("a", ["x"], x={"type": "string"}),
            arm("b", ["x"], x={"type": "string"}),
            arm("c", [], x={"type": "string", "description": "Only c says this."}),
        ]
    }
    flat = flatten_parameters(union)
    assert flat["properties"]["x"] == {"type": "string"}
    assert flat["properties"]["operation"]["description"] == "Needs: a(x) b(x)"


def test_a_field_every_operation_requires_stays_required_and_says_nothing_more() -> None:
    union = {
        "anyOf": [
            arm("a", ["id"], id={"type": "string", "description": "The id."}),
            arm("b", ["id"], id={"type": "string", "description": "The id."}),
        ]
    }
    flat = flatten_parameters(union)
    assert flat["required"] == ["operation", "id"]
    assert flat["properties"]["id"] == {"type": "string", "description": "The id."}


def test_an_open_arm_keeps_the_flat_object_open() -> None:
    union = copy.deepcopy(UNION)
    union["anyOf"][2]["additionalProperties"] = True
    assert "additionalProperties" not in flatten_parameters(union)


def test_without_a_discriminator_properties_merge_without_usage_notes() -> None:
    union = {
        "oneOf": [
            {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
            {"type": "object", "properties": {"y": {"type": "number"}}},
        ]
    }
    closed = {"oneOf": [{**arm, "additionalProperties": False} for arm in union["oneOf"]]}
    assert flatten_parameters(closed) == {
        "type": "object",
        "properties": {"x": {"type": "string"}, "y": {"type": "number"}},
        "additionalProperties": False,
    }
    # Open arms take any value for a key they do not declare ({"x": 5} passes the second arm),
    # so the flat schema must too.
    assert flatten_parameters(union) == {"type": "object", "properties": {"x": {}, "y": {}}}


def test_what_is_not_a_union_of_objects_comes_back_as_an_unchanged_copy() -> None:
    cases: list[dict[str, Any]] = [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"anyOf": [{"type": "string"}, {"type": "object"}]},
        {"anyOf": []},
        {"anyOf": [{"type": "object"}], "oneOf": [{"type": "object"}]},
        {"type": "string"},
    ]
    for schema in cases:
        flat = flatten_parameters(schema)
        assert flat == schema
        assert flat is not schema


def test_the_input_is_never_changed_and_root_keywords_are_kept() -> None:
    union = copy.deepcopy(UNION) | {"$defs": {"Name": {"type": "string"}}, "title": "T"}
    before = copy.deepcopy(union)
    flat = flatten_parameters(union)
    assert union == before
    assert flat["$defs"] == {"Name": {"type": "string"}}
    assert flat["title"] == "T"
    flat["properties"]["path"]["anyOf"].append({"type": "null"})
    assert union == before


def toolbox_unions() -> list[dict[str, Any]]:
    shapes = (database_tool_shape, workspace_tool_shape, relation_tool_shape)
    return [create_contract(shape).schema for shape in shapes]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_every_value_a_toolbox_union_accepts_its_flat_schema_accepts(data: st.DataObject) -> None:
    for union in toolbox_unions():
        flat = flatten_parameters(union)
        branch = data.draw(st.sampled_from(union["anyOf"]))
        value = data.draw(values(branch))
        jsonschema.validate(value, union)
        jsonschema.validate(value, flat)


FIELD_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "string", "minLength": 2},
        {"type": "integer", "minimum": 0},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "integer"}},
        {"enum": ["x", "y"]},
        {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    ]
)


@st.composite
def unions(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=5, unique=True))
    count = draw(st.integers(1, 5))
    arms = []
    for index in range(count):
        fields = draw(st.dictionaries(st.sampled_from(names), FIELD_SCHEMAS, max_size=4))
        required = [name for name in fields if draw(st.booleans())]
        closed = draw(st.booleans())
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {"operation": {"enum": [f"op{index}"]}, **fields},
            "required": ["operation", *required],
        }
        if closed:
            schema["additionalProperties"] = False
        arms.append(schema)
    return {draw(st.sampled_from(["anyOf", "oneOf"])): arms}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(union=unions(), data=st.data())
def test_flattening_any_union_never_refuses_a_value_one_of_its_arms_accepts(
    union: dict[str, Any], data: st.DataObject
) -> None:
    flat = flatten_parameters(union)
    assert flat["type"] == "object"
    assert not any(keyword in flat for keyword in TOP_LEVEL_REFUSED)
    arms = next(iter(union.values()))
    assert flat["properties"]["operation"]["enum"] == [f"op{i}" for i in range(len(arms))]
    branch = data.draw(st.sampled_from(arms))
    value = data.draw(values(branch))
    jsonschema.validate(value, flat)
