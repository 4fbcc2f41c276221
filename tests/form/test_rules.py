"""Every rule on every control it applies to, and the linear-time pattern engine."""

from __future__ import annotations

import time
from typing import Any

import pytest

from orkestrel.form import (
    RULE_MESSAGES,
    FieldError,
    audit_schema,
    create_form,
    evaluate_field,
    evaluate_form,
)

CHOICES = [
    {"value": "a", "label": "A"},
    {"value": "b", "label": "B"},
    {"value": "12", "label": "12"},
]


def field(control: str, rule: dict[str, Any], **keys: Any) -> dict[str, Any]:
    made: dict[str, Any] = {"control": control, "name": "f", "rule": rule, **keys}
    if control in ("select", "checkbox") and "choices" not in keys:
        made["choices"] = CHOICES
    return made


def rules(control: str, rule: dict[str, Any], value: Any, **keys: Any) -> list[str]:
    made = field(control, rule, **keys)
    assert audit_schema({"fields": [made]}) == []
    return [error.get("rule", "custom") for error in evaluate_field(made, value, {"f": value})]  # type: ignore[arg-type]


# (control, rule, passing value, failing value)
CASES: list[tuple[Any, ...]] = [
    ("text", {"minimum": 2}, "ab", "a"),
    ("text", {"maximum": 2}, "ab", "abc"),
    ("editor", {"minimum": 1, "maximum": 3}, "a\nb", "abcd"),
    ("password", {"minimum": 8}, "12345678", "1234567"),
    ("number", {"minimum": 1}, 1, 0.5),
    ("number", {"maximum": 10}, 10, 10.5),
    ("date", {"minimum": "2024-01-01"}, "2024-01-01", "2023-12-31"),
    ("date", {"maximum": "2024-01-31"}, "2024-01-31", "2024-02-01"),
    ("time", {"minimum": "09:00"}, "09:00:00", "08:59:59"),
    ("time", {"maximum": "17:00"}, "16:59", "17:01"),
    ("datetime", {"minimum": "2024-01-01T09:00"}, "2024-01-01T09:00", "2024-01-01T08:59"),
    ("checkbox", {"minimum": 1}, ["a"], []),
    ("checkbox", {"maximum": 1}, ["a"], ["a", "b"]),
    ("file", {"maximum": 2}, ["a.png", "b.png"], ["a", "b", "c"]),
    ("file", {"minimum": 2}, ["a", "b"], ["a"]),
    ("number", {"step": 0.25}, 1.75, 1.8),
    ("number", {"step": 2, "minimum": 1}, 5, 4),
    ("number", {"step": 0.1}, 0.3, 0.35),
    ("text", {"pattern": "[a-z]+"}, "abc", "abc1"),
    ("editor", {"pattern": "a|b"}, "b", "ab"),
    ("password", {"pattern": "\\d{4}"}, "1234", "12345"),
    ("date", {"pattern": "2024-.*"}, "2024-05-05", "2025-05-05"),
    ("time", {"pattern": "1\\d:.*"}, "10:00", "09:00"),
    ("datetime", {"pattern": ".*T00:00"}, "2024-01-01T00:00", "2024-01-01T00:01"),
    ("color", {"pattern": "#ff.*"}, "#ff0000", "#00ff00"),
    ("select", {"pattern": "[ab]"}, "a", "12"),
    ("text", {"email": True}, "ada@example.com", "ada@example"),
    ("editor", {"email": True}, "a@b.co", "a b@c.de"),
    ("text", {"url": True}, "https://example.com/x", "ftp://example.com"),
    ("select", {"url": True}, "https://x.y", "a", {"open": True}),
    ("text", {"alphanumeric": True}, "Abc123", "abc-123"),
    ("color", {"alphanumeric": True}, None, "#ffffff"),
    ("number", {"integer": True}, 3.0, 3.5),
    ("text", {"integer": True}, "-42", "4.2"),
    ("select", {"integer": True}, "12", "a"),
    ("date", {"integer": True}, None, "2024-01-01"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case[0]}-{'-'.join(case[1])}")
def test_each_rule_passes_and_fails_on_its_controls(case: tuple[Any, ...]) -> None:
    control, rule, good, bad, *rest = case
    keys = rest[0] if rest else {}
    if good is not None:
        assert rules(control, rule, good, **keys) == []
    failed = rules(control, rule, bad, **keys)
    assert failed, (control, rule, bad)
    assert set(failed) <= set(rule)


def test_required_is_presence_only() -> None:
    for control, value in [
        ("text", ""),
        ("number", 0),
        ("confirm", False),
        ("checkbox", []),
        ("file", []),
    ]:
        assert rules(control, {"required": True}, value) == []
        assert rules(control, {"required": True}, None) == ["required"]
    assert rules("text", {}, None) == []


def test_an_absent_value_fails_only_required_and_custom() -> None:
    made = field("text", {"required": True, "minimum": 3, "pattern": "x", "email": True})
    assert [e["rule"] for e in evaluate_field(made, None, {})] == ["required"]  # type: ignore[arg-type, typeddict-item]
    seen: list[Any] = []

    def custom(value: Any, values: Any) -> bool | str:
        seen.append((value, dict(values)))
        return "never"

    made = field("text", {"custom": custom})
    assert evaluate_field(made, None, {"other": 1}) == [{"field": "f", "message": "never"}]  # type: ignore[arg-type]
    assert seen == [(None, {"other": 1})]


def test_failures_come_in_rule_order_and_custom_last_without_a_rule() -> None:
    made = field(
        "text",
        {
            "custom": lambda value, values: False,
            "alphanumeric": True,
            "email": True,
            "minimum": 30,
            "pattern": "z+",
        },
    )
    errors = evaluate_field(made, "a b", {})  # type: ignore[arg-type]
    assert [error.get("rule") for error in errors] == [
        "minimum",
        "pattern",
        "email",
        "alphanumeric",
        None,
    ]
    assert "rule" not in errors[-1]


def test_messages_come_from_rule_messages_with_the_operand() -> None:
    made = field("number", {"minimum": 1.5, "step": 0.5})
    assert evaluate_field(made, 1.2, {}) == [  # type: ignore[arg-type]
        {
            "field": "f",
            "message": RULE_MESSAGES["minimum"].replace("{limit}", "1.5"),
            "rule": "minimum",
        },
        {"field": "f", "message": RULE_MESSAGES["step"].replace("{limit}", "0.5"), "rule": "step"},
    ]
    assert (
        evaluate_field(made, 1.2, {}, {"minimum": "at least {limit}!"})[0]["message"]
        == "at least 1.5!"
    )  # type: ignore[arg-type]
    form = create_form({"fields": [made]}, messages={"minimum": "more"})  # type: ignore[list-item]
    form.fill("f", 1.0)
    assert form.errors[0]["message"] == "more"


def test_evaluate_form_walks_schema_order_and_skips_disabled_fields() -> None:
    schema: Any = {
        "fields": [
            {"control": "text", "name": "b", "rule": {"required": True}},
            {"control": "text", "name": "a", "rule": {"required": True}, "disabled": True},
            {"control": "number", "name": "c", "rule": {"required": True}},
        ]
    }
    errors: list[FieldError] = evaluate_form(schema, {})
    assert [error["field"] for error in errors] == ["b", "c"]
    assert [error["field"] for error in evaluate_form(schema, {}, disabled={"b"})] == ["a", "c"]


def test_patterns_match_the_whole_value() -> None:
    assert rules("text", {"pattern": "b"}, "b") == []
    assert rules("text", {"pattern": "b"}, "abc") == ["pattern"]
    assert rules("text", {"pattern": "a|bc"}, "abc") == ["pattern"]
    assert rules("text", {"pattern": "abc"}, "abc\n") == ["pattern"]


@pytest.mark.parametrize("source", ["(a+)+", "(a|a)*", "(a*)*b", "(x+x+)+y", "(.*a){12}"])
def test_patterns_that_would_backtrack_run_in_linear_time(source: str) -> None:
    made = field("editor", {"pattern": source})
    started = time.monotonic()
    for length in (10, 1000, 50_000):
        assert rules("editor", {"pattern": source}, "a" * length + "!") == ["pattern"]
    # No timing claim: finishing at all is the point, a backtracking engine never would.
    assert time.monotonic() >= started
    assert made["rule"]["pattern"] == source


def test_patterns_the_linear_engine_refuses_are_audit_faults() -> None:
    for source in ["(?=a)a", "(?!a)b", "(?<=a)b", "(a)\\1"]:
        faults = audit_schema({"fields": [field("text", {"pattern": source})]})
        assert faults, source
        assert "invalid pattern" in faults[0], source
