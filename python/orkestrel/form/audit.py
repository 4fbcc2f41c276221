"""The audit of a structurally exact form document: names, references, defaults and rules."""

from __future__ import annotations

from typing import Any

from orkestrel.form.constants import NAME_LIMIT, PATTERN_LIMIT
from orkestrel.form.controls import control_fault
from orkestrel.form.patterns import FORMATS, pattern_fault
from orkestrel.form.reader import Refused, read_schema

LENGTH_CONTROLS = frozenset({"text", "editor", "password", "checkbox", "file"})
TEMPORAL_CONTROLS = frozenset({"date", "time", "datetime"})
RANGE_CONTROLS = LENGTH_CONTROLS | TEMPORAL_CONTROLS | {"number"}
PATTERN_CONTROLS = frozenset(
    {"text", "editor", "password", "date", "time", "datetime", "color", "select"}
)
INTEGER_CONTROLS = frozenset(FORMATS) | {"text", "editor", "password", "number", "select"}
RULE_CONTROLS: dict[str, frozenset[str]] = {
    "minimum": RANGE_CONTROLS,
    "maximum": RANGE_CONTROLS,
    "step": frozenset({"number"}),
    "pattern": PATTERN_CONTROLS,
    "email": PATTERN_CONTROLS,
    "url": PATTERN_CONTROLS,
    "alphanumeric": PATTERN_CONTROLS,
    "integer": INTEGER_CONTROLS,
}


def audit_schema(schema: object) -> list[str]:
    """Lists every fault of a form document, empty when it can be asked: duplicate or invalid
    names, missing group references, defaults the control cannot hold, rules on the wrong
    control or with the wrong operand, `minimum` above `maximum`, a required closed choice
    field with nothing enabled, a bad `pattern`, and the budgets.

    A document that is not structurally exact gets its one structural fault.
    """
    try:
        copy = read_schema(schema, "keep")
    except Refused as fault:
        return [str(fault)]
    return audit_copy(copy)


def audit_copy(copy: dict[str, Any]) -> list[str]:
    """The audit of a document `read_schema` has already read."""
    faults: list[str] = []
    if "name" in copy:
        faults.extend(_name_faults(copy["name"], "schema.name"))
    groups: set[str] = set()
    for index, group in enumerate(copy.get("groups", [])):
        where = f"groups[{index}]"
        faults.extend(_name_faults(group["name"], f"{where}.name"))
        if group["name"] in groups:
            faults.append(f"{where}.name: duplicate group name {group['name']!r}")
        groups.add(group["name"])
    names: set[str] = set()
    for index, field in enumerate(copy["fields"]):
        where = f"fields[{index}]"
        if field["name"] in names:
            faults.append(f"{where}.name: duplicate field name {field['name']!r}")
        names.add(field["name"])
        faults.extend(_field_faults(field, where, groups))
    return faults


def _name_faults(name: str, where: str) -> list[str]:
    if not name:
        return [f"{where}: a name cannot be empty"]
    if len(name) > NAME_LIMIT:
        return [f"{where}: a name has at most {NAME_LIMIT} characters"]
    if name == "__proto__":
        return [f"{where}: '__proto__' cannot be a name"]
    return []


def _field_faults(field: dict[str, Any], where: str, groups: set[str]) -> list[str]:
    faults = _name_faults(field["name"], f"{where}.name")
    control = field["control"]
    if "group" in field and field["group"] not in groups:
        faults.append(f"{where}.group: no group named {field['group']!r} is declared")
    choices = field.get("choices", [])
    seen: set[str] = set()
    for index, choice in enumerate(choices):
        if choice["value"] in seen:
            faults.append(f"{where}.choices[{index}]: duplicate choice {choice['value']!r}")
        seen.add(choice["value"])
    if "mask" in field and len(field["mask"]) != 1:
        faults.append(f"{where}.mask: a mask is one character")
    if "default" in field:
        reason = control_fault(field, field["default"])  # type: ignore[arg-type]
        if reason is not None:
            faults.append(f"{where}.default: the {control} field {reason}")
    rule = field.get("rule", {})
    faults.extend(_rule_faults(field, rule, f"{where}.rule"))
    closed = control == "checkbox" or (control == "select" and not field.get("open", False))
    enabled = [choice for choice in choices if not choice.get("disabled", False)]
    if rule.get("required") and closed and not enabled:
        faults.append(f"{where}: a required {control} field needs at least one enabled choice")
    return faults


def _rule_faults(field: dict[str, Any], rule: dict[str, Any], where: str) -> list[str]:
    control = field["control"]
    faults: list[str] = []
    for key, allowed in RULE_CONTROLS.items():
        if key in rule and control not in allowed:
            faults.append(f"{where}.{key}: a {control} field takes no {key} rule")
    for key in ("minimum", "maximum"):
        if key in rule and control in RANGE_CONTROLS:
            fault = _bound_fault(control, rule[key])
            if fault is not None:
                faults.append(f"{where}.{key}: {fault}")
    low, high = rule.get("minimum"), rule.get("maximum")
    if (
        low is not None
        and high is not None
        and isinstance(low, str) == isinstance(high, str)
        and not faults
        and low > high
    ):
        faults.append(f"{where}: minimum {low!r} is above maximum {high!r}")
    if "step" in rule and not rule["step"] > 0:
        faults.append(f"{where}.step: a step is a positive number")
    if "pattern" in rule:
        source = rule["pattern"]
        if len(source) > PATTERN_LIMIT:
            faults.append(f"{where}.pattern: at most {PATTERN_LIMIT} characters")
        elif (reason := pattern_fault(source)) is not None:
            faults.append(f"{where}.pattern: invalid pattern: {reason}")
    return faults


def _bound_fault(control: str, bound: object) -> str | None:
    if control in TEMPORAL_CONTROLS:
        if type(bound) is not str or FORMATS[control].match(bound) is None:
            return f"a {control} bound is a string in the field's own format"
        return None
    if type(bound) is str:
        return f"a {control} bound is a number"
    whole = type(bound) is int or (type(bound) is float and bound.is_integer())
    if control in LENGTH_CONTROLS and (not whole or bound < 0):  # type: ignore[operator]
        return f"a {control} bound is a count: a whole number from 0"
    return None
