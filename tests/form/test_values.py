"""Answers at the boundary: the values guard, coercion, and a wrong type for every control."""

from __future__ import annotations

import math
from typing import Any

import pytest

from orkestrel.form import (
    FIELD_CONTROLS,
    LIST_LIMIT,
    STRING_LIMIT,
    FormError,
    create_form,
    is_field_error,
    is_form_values,
    matches_answer,
    parse_value,
)

SCHEMA: Any = {
    "fields": [
        {"control": "text", "name": "text"},
        {"control": "editor", "name": "editor"},
        {"control": "password", "name": "password"},
        {"control": "number", "name": "number"},
        {"control": "date", "name": "date"},
        {"control": "time", "name": "time"},
        {"control": "datetime", "name": "datetime"},
        {"control": "color", "name": "color"},
        {"control": "confirm", "name": "confirm"},
        {
            "control": "select",
            "name": "select",
            "choices": [
                {"value": "a", "label": "A"},
                {"value": "off", "label": "Off", "disabled": True},
            ],
        },
        {
            "control": "checkbox",
            "name": "checkbox",
            "choices": [
                {"value": "a", "label": "A"},
                {"value": "b", "label": "B"},
                {"value": "off", "label": "Off", "disabled": True},
            ],
        },
        {"control": "file", "name": "file"},
    ]
}

FITS = {
    "text": "x",
    "editor": "x\ny",
    "password": "s3cret",
    "number": -1.5,
    "date": "2024-12-31",
    "time": "00:00",
    "datetime": "2024-12-31T23:59:59",
    "color": "#000000",
    "confirm": True,
    "select": "a",
    "checkbox": ["b", "a"],
    "file": ["report.pdf"],
}

WRONG: dict[str, list[Any]] = {
    "text": [1, True, ["x"], {"x": 1}, None.__class__, "x" * (STRING_LIMIT + 1)],
    "editor": [2.5, False, [], {}],
    "password": [0, ["a"]],
    "number": ["1", True, False, math.nan, math.inf, -math.inf, 10**400, [1], {}],
    "date": [
        "2024-1-1",
        "2024-13-01",
        "2024-00-10",
        "2024-01-32",
        "20240101",
        "2024-01-01T00:00",
        20240101,
        "\uff12\uff10\uff12\uff14-01-01",
    ],
    "time": ["24:00", "12:60", "1:00", "12:00:60", "12", 1200, "\uff11\uff12:00"],
    "datetime": [
        "2024-01-01",
        "2024-01-01 10:00",
        "2024-01-01T10:00Z",
        "2024-01-01T10:00+01:00",
        True,
    ],
    "color": ["#fff", "red", "#gggggg", "#0000000", 0xFFFFFF, "#00000\n"],
    "confirm": [1, 0, "true", "yes", None.__class__, []],
    "select": ["b", "off", 1, ["a"], True],
    "checkbox": ["a", ["a", "a"], ["c"], ["off"], [1], ["a"] * (LIST_LIMIT + 1), True],
    "file": ["a.txt", ["a", "b"], [""], [1], {"name": "a"}],
}


def test_every_control_holds_its_own_kind_of_value() -> None:
    form = create_form(SCHEMA)
    form.fill(FITS)
    assert form.values == FITS
    assert set(FIELD_CONTROLS) == {field["control"] for field in SCHEMA["fields"]}


@pytest.mark.parametrize(
    ("name", "value"), [(name, value) for name, values in WRONG.items() for value in values]
)
def test_a_value_of_the_wrong_type_is_a_control_error_and_changes_nothing(
    name: str, value: Any
) -> None:
    form = create_form(SCHEMA, values={"text": "kept"})
    with pytest.raises(FormError) as caught:
        form.fill({"editor": "written first?", name: value})
    assert caught.value.code == "CONTROL"
    assert caught.value.context is not None
    assert caught.value.context["field"] == name
    assert form.values == {"text": "kept"}
    with pytest.raises(FormError):
        create_form(SCHEMA, values={name: value})


def test_an_undeclared_name_is_a_field_error() -> None:
    form = create_form(SCHEMA)
    with pytest.raises(FormError) as caught:
        form.fill("nope", "x")
    assert caught.value.code == "FIELD"
    with pytest.raises(FormError):
        create_form(SCHEMA, values={"nope": 1})
    for method in (form.touch, form.disable, form.enable):
        with pytest.raises(FormError):
            method("nope")


def test_multiple_files_need_multiple() -> None:
    schema: Any = {"fields": [{"control": "file", "name": "f", "multiple": True}]}
    form = create_form(schema)
    form.fill("f", ["a", "b", "c"])
    assert form.values == {"f": ["a", "b", "c"]}


def test_an_open_select_admits_any_string() -> None:
    schema: Any = {"fields": [{"control": "select", "name": "s", "open": True, "choices": []}]}
    form = create_form(schema)
    form.fill("s", "anything")
    assert form.values == {"s": "anything"}


class Raising(dict[str, Any]):
    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def items(self) -> Any:
        raise RuntimeError("boom")

    def keys(self) -> Any:
        raise RuntimeError("boom")


@pytest.mark.parametrize(
    "value",
    [
        None,
        [],
        "x",
        1,
        {1: "x"},
        {"a": None},
        {"a": math.nan},
        {"a": math.inf},
        {"a": {1, 2}},
        {"a": ("x",)},
        {"a": [1]},
        {"a": ["x", None]},
        {"a": {"b": 1}},
        {"a": b"x"},
        {"a": 10**400},
        {"a": object()},
    ],
)
def test_is_form_values_refuses_what_is_not_a_values_record(value: Any) -> None:
    assert is_form_values(value) is False


def test_is_form_values_accepts_plain_records_and_never_trusts_a_subclass() -> None:
    assert is_form_values({})
    assert is_form_values({"a": "x", "b": 1, "c": 2.5, "d": True, "e": [], "f": ["x"]})
    assert is_form_values(Raising(a="x"))
    assert not is_form_values(Raising(a=None))


def test_is_field_error() -> None:
    assert is_field_error({"field": "a", "message": "m"})
    assert is_field_error({"field": "a", "message": "m", "rule": "required"})
    for value in [
        {"field": "a"},
        {"field": "a", "message": 1},
        {"field": "a", "message": "m", "rule": "custom"},
        {"field": "a", "message": "m", "x": 1},
        [],
        None,
        Raising(field="a", message="m"),
    ]:
        assert not is_field_error(value), value


def test_parse_value_coerces_what_a_front_end_sends() -> None:
    fields = {field["name"]: field for field in SCHEMA["fields"]}
    assert parse_value(fields["number"], " 42 ") == 42
    assert parse_value(fields["number"], "2.5") == 2.5
    assert parse_value(fields["number"], "1e400") is None
    assert parse_value(fields["number"], "nan") is None
    assert parse_value(fields["number"], "x") is None
    assert parse_value(fields["confirm"], "true") is True
    assert parse_value(fields["confirm"], "FALSE") is False
    assert parse_value(fields["confirm"], "maybe") is None
    assert parse_value(fields["checkbox"], "a") == ["a"]
    assert parse_value(fields["file"], "x.pdf") == ["x.pdf"]
    assert parse_value(fields["date"], "2024-02-30") == "2024-02-30"
    assert parse_value(fields["date"], "tomorrow") is None
    assert parse_value(fields["select"], "off") is None


def test_matches_answer() -> None:
    assert not matches_answer(None)
    assert not matches_answer("")
    assert not matches_answer(" \t\n")
    for value in ["x", 0, False, [], 0.0]:
        assert matches_answer(value)
