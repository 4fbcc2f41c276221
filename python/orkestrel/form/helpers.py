"""The wire boundary of a form document: parse, explain, serialize, and coerce one answer."""

from __future__ import annotations

import math
from typing import Any, cast

from orkestrel.form.audit import audit_copy
from orkestrel.form.controls import control_fault
from orkestrel.form.errors import FormError
from orkestrel.form.reader import Refused, read_schema
from orkestrel.form.types import FieldValue, FormField, FormSchema


def explain_form(value: object) -> list[str]:
    """Lists why a value is not a form document `parse_form` accepts, empty exactly when it
    is one: the one structural fault when its structure is not exact, else every audit fault."""
    try:
        copy = read_schema(value, "drop")
    except Refused as fault:
        return [str(fault)]
    return audit_copy(copy)


def parse_form(value: object) -> FormSchema | None:
    """Returns a fresh, owned copy of a form document in wire order, or `None` when the value is
    not exactly one or fails the audit; never raises. A `custom` rule is dropped first."""
    try:
        copy = read_schema(value, "drop")
    except Refused:
        return None
    if audit_copy(copy):
        return None
    return cast(FormSchema, copy)


def serialize_form(schema: FormSchema) -> dict[str, Any]:
    """Projects a form document onto JSON in its fixed wire order, dropping `custom` rules,
    absent members and empty rules; raises `FormError` (`SCHEMA`) for a value that is not
    structurally a form document.

    The order: schema `name, label, help, groups, fields`; field `control, name, label, help,
    group, hidden, disabled, locked, meta`, the control's own keys, then `rule`.
    """
    try:
        return read_schema(schema, "drop")
    except Refused as fault:
        raise FormError("SCHEMA", f"not a form schema: {fault}", {"faults": [str(fault)]}) from None


def parse_value(field: FormField, value: object) -> FieldValue | None:
    """Coerces one answer to what `field`'s control holds, or `None` when it cannot: a numeric
    string becomes a number, `"true"`/`"false"` a `bool`, and a lone string a one-entry list
    for `checkbox` and `file`."""
    control = field["control"]
    candidate: Any = value
    if control == "number" and isinstance(value, str):
        candidate = _number(value)
    elif control == "confirm" and isinstance(value, str):
        candidate = {"true": True, "false": False}.get(value.strip().lower(), value)
    elif control in ("checkbox", "file") and isinstance(value, str):
        candidate = [value]
    if candidate is None or control_fault(field, candidate) is not None:
        return None
    fresh: FieldValue = list(candidate) if isinstance(candidate, list) else candidate
    return fresh


def _number(text: str) -> float | None:
    stripped = text.strip()
    if not stripped or len(stripped) > 64:
        return None
    try:
        number = int(stripped)
    except ValueError:
        try:
            parsed = float(stripped)
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None
    return number
