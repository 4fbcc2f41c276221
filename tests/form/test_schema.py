"""The form document at its wire boundary: exact structure, the audit, budgets, wire order."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.form import (
    CHOICE_LIMIT,
    DEPTH_LIMIT,
    FIELD_CONTROLS,
    FIELD_LIMIT,
    GROUP_LIMIT,
    NAME_LIMIT,
    NODE_LIMIT,
    PATTERN_LIMIT,
    STRING_LIMIT,
    TEXT_LIMIT,
    FormError,
    audit_schema,
    create_form,
    explain_form,
    is_form_schema,
    parse_form,
    serialize_form,
)

ONE_OF_EACH: list[dict[str, Any]] = [
    {"control": "text", "name": "text", "default": "a", "placeholder": "type"},
    {"control": "editor", "name": "editor", "default": "many\nlines"},
    {"control": "password", "name": "password", "mask": "*"},
    {"control": "number", "name": "number", "default": 2.5, "placeholder": "2"},
    {"control": "date", "name": "date", "default": "2024-02-29"},
    {"control": "time", "name": "time", "default": "23:59:59"},
    {"control": "datetime", "name": "datetime", "default": "2024-02-29T08:30"},
    {"control": "color", "name": "color", "default": "#A0b1C2"},
    {"control": "confirm", "name": "confirm", "default": False},
    {
        "control": "select",
        "name": "select",
        "choices": [{"value": "a", "label": "A"}, {"value": "b", "label": "B", "disabled": True}],
        "default": "a",
        "open": False,
    },
    {
        "control": "checkbox",
        "name": "checkbox",
        "choices": [{"value": "x", "label": "X", "help": "the x"}, {"value": "y", "label": "Y"}],
        "default": ["y"],
    },
    {"control": "file", "name": "file", "accept": ["image/png", ".pdf"], "multiple": True},
]


def schema_of(*fields: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {**top, "fields": list(fields)}


def test_every_control_parses_to_an_equal_fresh_copy() -> None:
    schema = schema_of(*copy.deepcopy(ONE_OF_EACH), label="All", help="every control")
    parsed = parse_form(schema)
    assert parsed == schema
    assert parsed is not schema
    assert parsed["fields"][0] is not schema["fields"][0]
    assert [field["control"] for field in parsed["fields"]] == list(FIELD_CONTROLS)


def test_parse_and_serialize_write_the_wire_order() -> None:
    field = {
        "rule": {"maximum": 9, "required": True, "minimum": 1},
        "placeholder": "n",
        "default": 3,
        "meta": {"z": 1, "a": [True, None]},
        "locked": False,
        "disabled": False,
        "hidden": False,
        "group": "g",
        "help": "h",
        "label": "l",
        "name": "n",
        "control": "number",
    }
    schema = {
        "fields": [field],
        "groups": [{"help": "gh", "label": "G", "name": "g"}],
        "label": "L",
    }
    parsed = parse_form(schema)
    assert parsed is not None
    assert list(parsed) == ["label", "groups", "fields"]
    assert list(parsed["groups"][0]) == ["name", "label", "help"]
    assert list(parsed["fields"][0]) == [
        "control",
        "name",
        "label",
        "help",
        "group",
        "hidden",
        "disabled",
        "locked",
        "meta",
        "default",
        "placeholder",
        "rule",
    ]
    assert list(parsed["fields"][0]["rule"]) == ["required", "minimum", "maximum"]
    assert list(parsed["fields"][0]["meta"]) == ["z", "a"]
    assert serialize_form(schema) == parsed
    choice = {"disabled": False, "help": "h", "label": "A", "value": "a"}
    select = parse_form(
        schema_of(
            {"open": True, "default": "a", "choices": [choice], "name": "s", "control": "select"}
        )
    )
    assert select is not None
    assert list(select["fields"][0]) == ["control", "name", "choices", "default", "open"]
    assert list(select["fields"][0]["choices"][0]) == ["value", "label", "help", "disabled"]


def test_a_custom_rule_is_dropped_on_the_wire_and_kept_in_process() -> None:
    def check(value: object, values: object) -> bool:
        return True

    schema = schema_of({"control": "text", "name": "a", "rule": {"custom": check}})
    assert parse_form(schema) == schema_of({"control": "text", "name": "a"})
    assert serialize_form(schema) == schema_of({"control": "text", "name": "a"})
    assert create_form(schema).schema["fields"][0]["rule"]["custom"] is check  # type: ignore[typeddict-item]
    assert parse_form(
        schema_of({"control": "text", "name": "a", "rule": {"custom": "x"}})
    ) == schema_of({"control": "text", "name": "a"})


REFUSED: list[tuple[Any, str]] = [
    (None, "expected an object"),
    ([], "expected an object"),
    ({}, "missing fields"),
    ({"fields": {}}, "expected a list"),
    ({"fields": [], "title": "x"}, "unknown key 'title'"),
    (schema_of({"control": "slider", "name": "a"}), "expected one of text"),
    (schema_of({"name": "a"}), "expected one of text"),
    (schema_of({"control": "text"}), "missing name"),
    (schema_of({"control": "text", "name": 1}), "expected a string"),
    (schema_of({"control": "text", "name": "a", "label": {"en": "x"}}), "expected a string"),
    (schema_of({"control": "text", "name": "a", "choices": []}), "unknown key 'choices'"),
    (schema_of({"control": "password", "name": "a", "default": "x"}), "unknown key 'default'"),
    (schema_of({"control": "file", "name": "a", "default": ["x"]}), "unknown key 'default'"),
    (schema_of({"control": "select", "name": "a"}), "missing choices"),
    (schema_of({"control": "checkbox", "name": "a"}), "missing choices"),
    (schema_of({"control": "select", "name": "a", "choices": "a,b"}), "expected a list"),
    (schema_of({"control": "select", "name": "a", "choices": [{"value": "a"}]}), "missing label"),
    (
        schema_of({"control": "select", "name": "a", "choices": [{"value": 1, "label": "x"}]}),
        "expected a string",
    ),
    (
        schema_of(
            {"control": "select", "name": "a", "choices": [{"value": "a", "label": "A", "x": 1}]}
        ),
        "unknown key 'x'",
    ),
    (schema_of({"control": "confirm", "name": "a", "hidden": "yes"}), "expected true or false"),
    (schema_of({"control": "number", "name": "a", "default": True}), "expected a finite number"),
    (
        schema_of({"control": "number", "name": "a", "default": float("nan")}),
        "expected a finite number",
    ),
    (schema_of({"control": "number", "name": "a", "default": "3"}), "expected a finite number"),
    (schema_of({"control": "text", "name": "a", "rule": {"regex": "x"}}), "unknown key 'regex'"),
    (
        schema_of({"control": "text", "name": "a", "rule": {"required": "yes"}}),
        "expected true or false",
    ),
    (
        schema_of({"control": "text", "name": "a", "rule": {"step": "1"}}),
        "expected a finite number",
    ),
    (schema_of({"control": "text", "name": "a", "meta": [1]}), "expected an object"),
    (schema_of({"control": "text", "name": "a", "meta": {"f": {1, 2}}}), "expected JSON"),
    ({"fields": [], "groups": [{"name": "g"}]}, "missing label"),
    ({1: "x", "fields": []}, "keys must be strings"),
]


@pytest.mark.parametrize(("value", "fault"), REFUSED)
def test_a_structure_that_is_not_exact_is_refused(value: Any, fault: str) -> None:
    assert parse_form(value) is None
    faults = explain_form(value)
    assert len(faults) == 1
    assert fault in faults[0]
    assert not is_form_schema(value)
    with pytest.raises(FormError) as caught:
        create_form(value)
    assert caught.value.code == "SCHEMA"


AUDITED: list[tuple[dict[str, Any], str]] = [
    (
        schema_of({"control": "text", "name": "a"}, {"control": "editor", "name": "a"}),
        "duplicate field name 'a'",
    ),
    (schema_of({"control": "text", "name": ""}), "cannot be empty"),
    (schema_of({"control": "text", "name": "x" * (NAME_LIMIT + 1)}), f"at most {NAME_LIMIT}"),
    (schema_of({"control": "text", "name": "__proto__"}), "'__proto__' cannot be a name"),
    (
        {"fields": [], "groups": [{"name": "g", "label": "G"}, {"name": "g", "label": "H"}]},
        "duplicate group name 'g'",
    ),
    (schema_of({"control": "text", "name": "a", "group": "nowhere"}), "no group named 'nowhere'"),
    (
        schema_of(
            {
                "control": "select",
                "name": "a",
                "choices": [{"value": "x", "label": "X"}, {"value": "x", "label": "Y"}],
            }
        ),
        "duplicate choice 'x'",
    ),
    (
        schema_of(
            {
                "control": "select",
                "name": "a",
                "choices": [{"value": "x", "label": "X"}],
                "default": "y",
            }
        ),
        "enabled choices",
    ),
    (
        schema_of(
            {
                "control": "select",
                "name": "a",
                "choices": [{"value": "x", "label": "X", "disabled": True}],
                "default": "x",
            }
        ),
        "enabled choices",
    ),
    (
        schema_of(
            {
                "control": "checkbox",
                "name": "a",
                "choices": [{"value": "x", "label": "X"}],
                "default": ["x", "x"],
            }
        ),
        "distinct",
    ),
    (schema_of({"control": "date", "name": "a", "default": "2024-13-01"}), "YYYY-MM-DD"),
    (schema_of({"control": "time", "name": "a", "default": "24:00"}), "HH:MM"),
    (
        schema_of({"control": "datetime", "name": "a", "default": "2024-01-01 10:00"}),
        "YYYY-MM-DDTHH:MM",
    ),
    (schema_of({"control": "color", "name": "a", "default": "#abc"}), "#rrggbb"),
    (schema_of({"control": "password", "name": "a", "mask": "**"}), "one character"),
    (schema_of({"control": "color", "name": "a", "rule": {"minimum": 1}}), "takes no minimum rule"),
    (
        schema_of({"control": "confirm", "name": "a", "rule": {"pattern": "x"}}),
        "takes no pattern rule",
    ),
    (schema_of({"control": "text", "name": "a", "rule": {"step": 1}}), "takes no step rule"),
    (
        schema_of(
            {
                "control": "checkbox",
                "name": "a",
                "choices": [{"value": "x", "label": "X"}],
                "rule": {"integer": True},
            }
        ),
        "takes no integer rule",
    ),
    (schema_of({"control": "file", "name": "a", "rule": {"email": True}}), "takes no email rule"),
    (schema_of({"control": "number", "name": "a", "rule": {"minimum": "1"}}), "bound is a number"),
    (
        schema_of({"control": "text", "name": "a", "rule": {"minimum": 1.5}}),
        "a whole number from 0",
    ),
    (schema_of({"control": "text", "name": "a", "rule": {"maximum": -1}}), "a whole number from 0"),
    (schema_of({"control": "date", "name": "a", "rule": {"minimum": 20240101}}), "own format"),
    (
        schema_of({"control": "number", "name": "a", "rule": {"minimum": 5, "maximum": 1}}),
        "above maximum",
    ),
    (
        schema_of(
            {
                "control": "date",
                "name": "a",
                "rule": {"minimum": "2024-02-01", "maximum": "2024-01-01"},
            }
        ),
        "above maximum",
    ),
    (schema_of({"control": "number", "name": "a", "rule": {"step": 0}}), "positive"),
    (schema_of({"control": "number", "name": "a", "rule": {"step": -2}}), "positive"),
    (
        schema_of({"control": "text", "name": "a", "rule": {"pattern": "x" * (PATTERN_LIMIT + 1)}}),
        f"at most {PATTERN_LIMIT}",
    ),
    (schema_of({"control": "text", "name": "a", "rule": {"pattern": "(?=a)a"}}), "invalid pattern"),
    (schema_of({"control": "text", "name": "a", "rule": {"pattern": "(a)\\1"}}), "invalid pattern"),
    (schema_of({"control": "text", "name": "a", "rule": {"pattern": "("}}), "invalid pattern"),
    (
        schema_of(
            {
                "control": "select",
                "name": "a",
                "choices": [{"value": "x", "label": "X", "disabled": True}],
                "rule": {"required": True},
            }
        ),
        "at least one enabled choice",
    ),
    (
        schema_of({"control": "checkbox", "name": "a", "choices": [], "rule": {"required": True}}),
        "at least one enabled choice",
    ),
]


@pytest.mark.parametrize(("schema", "fault"), AUDITED)
def test_the_audit_refuses_what_could_never_be_answered(schema: dict[str, Any], fault: str) -> None:
    faults = audit_schema(schema)
    assert any(fault in item for item in faults), faults
    assert explain_form(schema) == faults
    assert parse_form(schema) is None
    with pytest.raises(FormError) as caught:
        create_form(schema)
    assert caught.value.code == "SCHEMA"
    assert caught.value.context == {"faults": faults}


def test_every_fault_is_listed_not_only_the_first() -> None:
    schema = schema_of(
        {"control": "text", "name": "a", "group": "g"},
        {"control": "text", "name": "a", "rule": {"step": 1}},
    )
    assert len(audit_schema(schema)) == 3


def test_an_open_select_with_no_enabled_choice_is_a_schema_but_a_closed_required_one_is_not() -> (
    None
):
    disabled = [{"value": "x", "label": "X", "disabled": True}]
    assert parse_form(
        schema_of(
            {
                "control": "select",
                "name": "a",
                "choices": disabled,
                "open": True,
                "rule": {"required": True},
            }
        )
    )
    assert parse_form(schema_of({"control": "select", "name": "a", "choices": disabled}))


def test_budgets_refuse_the_whole_schema_early() -> None:
    many = schema_of(*({"control": "text", "name": f"f{i}"} for i in range(10_000)))
    assert explain_form(many) == [f"schema.fields: at most {FIELD_LIMIT} fields, got 10000"]
    assert parse_form(
        schema_of(*({"control": "text", "name": f"f{i}"} for i in range(FIELD_LIMIT)))
    )
    huge = schema_of({"control": "text", "name": "a", "label": "x" * 1_048_576})
    assert "a string of at most" in explain_form(huge)[0]
    assert parse_form(schema_of({"control": "text", "name": "a", "label": "x" * STRING_LIMIT}))
    groups = [{"name": f"g{i}", "label": "G"} for i in range(GROUP_LIMIT + 1)]
    assert f"at most {GROUP_LIMIT} groups" in explain_form({"fields": [], "groups": groups})[0]
    choices = [{"value": str(i), "label": "c"} for i in range(CHOICE_LIMIT + 1)]
    assert (
        f"at most {CHOICE_LIMIT} choices"
        in explain_form(schema_of({"control": "select", "name": "s", "choices": choices}))[0]
    )
    long_labels = [{"control": "text", "name": f"f{i}", "label": "x" * 60_000} for i in range(20)]
    assert f"more than {TEXT_LIMIT} string characters" in explain_form(schema_of(*long_labels))[0]
    wide = schema_of(
        {"control": "text", "name": "a", "meta": {f"k{i}": i for i in range(NODE_LIMIT)}}
    )
    assert f"more than {NODE_LIMIT}" in explain_form(wide)[0]


def test_a_deeply_nested_meta_is_refused_without_exhausting_the_stack() -> None:
    deep: Any = {}
    cursor = deep
    for _ in range(100_000):
        cursor["x"] = {}
        cursor = cursor["x"]
    faults = explain_form(schema_of({"control": "text", "name": "a", "meta": deep}))
    assert faults == [f"fields[0].meta: nested more than {DEPTH_LIMIT} levels deep"]
    shallow: Any = {}
    cursor = shallow
    for _ in range(DEPTH_LIMIT - 1):
        cursor["x"] = {}
        cursor = cursor["x"]
    assert parse_form(schema_of({"control": "text", "name": "a", "meta": shallow}))


def test_a_lying_dict_subclass_is_read_through_dict_itself() -> None:
    class Liar(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise RuntimeError("no")

        def get(self, key: str, default: Any = None) -> Any:
            raise RuntimeError("no")

        def items(self) -> Any:
            raise RuntimeError("no")

    schema = Liar(fields=[Liar(control="text", name="a")])
    assert parse_form(schema) == schema_of({"control": "text", "name": "a"})
    assert type(parse_form(schema)) is dict


def test_serialize_refuses_what_is_not_a_form() -> None:
    with pytest.raises(FormError) as caught:
        serialize_form({"fields": "no"})  # type: ignore[typeddict-item]
    assert caught.value.code == "SCHEMA"


SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True), st.text(max_size=5)
)
KEYS = st.sampled_from(
    ["control", "name", "label", "fields", "choices", "value", "rule", "required", "default", "x"]
)
JSONISH = st.recursive(
    SCALARS | st.sampled_from(list(FIELD_CONTROLS)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=20,
)
FIELDS = st.fixed_dictionaries(
    {"control": st.sampled_from(list(FIELD_CONTROLS)), "name": st.text(max_size=3)},
    optional={
        "label": st.text(max_size=3),
        "default": JSONISH,
        "choices": st.lists(
            st.fixed_dictionaries({"value": st.text(max_size=2), "label": st.just("c")}), max_size=3
        ),
        "rule": st.dictionaries(
            st.sampled_from(["required", "minimum", "maximum", "step", "pattern", "integer"]),
            SCALARS,
            max_size=3,
        ),
    },
)
SCHEMAS = st.one_of(JSONISH, st.fixed_dictionaries({"fields": st.lists(FIELDS, max_size=4)}))


@given(SCHEMAS)
def test_explain_is_empty_exactly_when_parse_succeeds(value: Any) -> None:
    parsed = parse_form(value)
    assert (explain_form(value) == []) == (parsed is not None)
    if parsed is not None:
        assert parse_form(parsed) == parsed
        assert serialize_form(parsed) == parsed
