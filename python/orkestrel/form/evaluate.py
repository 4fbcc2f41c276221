"""Evaluating answers against the rules of their fields."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from orkestrel.contract import number_to_string
from orkestrel.form.audit import LENGTH_CONTROLS, TEMPORAL_CONTROLS
from orkestrel.form.constants import RULE_MESSAGES
from orkestrel.form.patterns import ALPHANUMERIC, EMAIL, INTEGER, URL, authored
from orkestrel.form.types import (
    FieldError,
    FieldRuleName,
    FieldValue,
    FormField,
    FormSchema,
    FormValues,
)

STEP_TOLERANCE = 1e-9
CUSTOM_MESSAGE = "The answer was refused"


def evaluate_field(
    field: FormField,
    value: FieldValue | None,
    values: FormValues,
    messages: Mapping[FieldRuleName, str] | None = None,
) -> list[FieldError]:
    """Lists the failures of one answer against its field's rules, in rule order: `required`,
    `minimum`, `maximum`, `step`, `pattern`, `email`, `url`, `integer`, `alphanumeric`, then
    `custom`. An absent answer (`None`) can fail only `required` and `custom`."""
    rule: Mapping[str, Any] = field.get("rule", {})
    name = field["name"]
    failures: list[FieldError] = []

    def fail(key: FieldRuleName, limit: object = None) -> None:
        text = (messages or {}).get(key, RULE_MESSAGES[key])
        if limit is not None:
            text = text.replace("{limit}", _operand(limit))
        failures.append({"field": name, "message": text, "rule": key})

    if value is None:
        if rule.get("required") is True:
            fail("required")
    else:
        _check(field, value, rule, fail)
    custom = rule.get("custom")
    if custom is not None:
        verdict = custom(value, values)
        if verdict is not True:
            message = verdict if isinstance(verdict, str) and verdict else CUSTOM_MESSAGE
            failures.append({"field": name, "message": message})
    return failures


def _check(field: FormField, value: FieldValue, rule: Mapping[str, Any], fail: Any) -> None:
    control = field["control"]
    measure = _measure(control, value)
    if measure is not None:
        if "minimum" in rule and _below(measure, rule["minimum"]):
            fail("minimum", rule["minimum"])
        if "maximum" in rule and _below(rule["maximum"], measure):
            fail("maximum", rule["maximum"])
    if "step" in rule and control == "number" and not isinstance(value, bool | str | list):
        base = rule.get("minimum", 0)
        quotient = (value - (base if isinstance(base, int | float) else 0)) / rule["step"]
        if abs(quotient - round(quotient)) > STEP_TOLERANCE:
            fail("step", rule["step"])
    if isinstance(value, str):
        if "pattern" in rule and not authored(rule["pattern"]).is_valid(value):
            fail("pattern", rule["pattern"])
        for key, shape in (("email", EMAIL), ("url", URL)):
            if rule.get(key) is True and shape.match(value) is None:
                fail(key)
    if rule.get("integer") is True and not _integral(value):
        fail("integer")
    if rule.get("alphanumeric") is True and (
        not isinstance(value, str) or ALPHANUMERIC.match(value) is None
    ):
        fail("alphanumeric")


def _measure(control: str, value: FieldValue) -> Any:
    if control in LENGTH_CONTROLS:
        return len(value) if isinstance(value, str | list) else None
    if control in TEMPORAL_CONTROLS:
        return value if isinstance(value, str) else None
    if control == "number" and not isinstance(value, bool | str | list):
        return value
    return None


def _below(left: Any, right: Any) -> bool:
    if isinstance(left, str) != isinstance(right, str):
        return False
    return bool(left < right)


def _integral(value: FieldValue) -> bool:
    if isinstance(value, bool | list):
        return False
    if isinstance(value, str):
        return INTEGER.match(value) is not None
    return float(value).is_integer()


def _operand(limit: object) -> str:
    if isinstance(limit, bool):
        return "true" if limit else "false"
    if isinstance(limit, int | float):
        return number_to_string(limit)
    return str(limit)


def evaluate_form(
    schema: FormSchema,
    values: FormValues,
    messages: Mapping[FieldRuleName, str] | None = None,
    *,
    disabled: Collection[str] | None = None,
) -> list[FieldError]:
    """Lists the failures of every field in schema order, skipping disabled fields: those in
    `disabled` when given, else those the schema marks `disabled`."""
    failures: list[FieldError] = []
    for field in schema["fields"]:
        off = field["name"] in disabled if disabled is not None else field.get("disabled", False)
        if not off:
            failures.extend(evaluate_field(field, values.get(field["name"]), values, messages))
    return failures
