"""Guards at the form's untrusted boundary, and the check that a value fits its control."""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from orkestrel.form.constants import FIELD_RULES, LIST_LIMIT, STRING_LIMIT
from orkestrel.form.patterns import FORMATS
from orkestrel.form.types import FieldError, FieldValue, FormField, FormSchema, FormValues


def is_number(value: object) -> bool:
    """Whether a value is a finite `int` or `float` (never a `bool`)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _is_text_list(value: object) -> bool:
    return type(value) is list and all(type(item) is str for item in value)


def copy_value(value: object) -> FieldValue | None:
    """A fresh plain copy of one answer, or `None` when it is not a `FieldValue`."""
    if isinstance(value, str | bool) and type(value) in (str, bool):
        return value
    if isinstance(value, int | float) and type(value) in (int, float):
        return value if is_number(value) else None
    if isinstance(value, list) and _is_text_list(value):
        return [str(item) for item in value]
    return None


def copy_values(value: object) -> FormValues | None:
    """A fresh plain copy of an answers record, or `None` when it is not `FormValues`.

    Reads a dict through `dict` itself, so a subclass that lies in `__getitem__` or `items`
    cannot change what is read; never raises.
    """
    if not isinstance(value, dict):
        return None
    try:
        copied: FormValues = {}
        for key, item in dict.items(value):
            if type(key) is not str:
                return None
            fresh = copy_value(item)
            if fresh is None:
                return None
            copied[key] = fresh
    except Exception:
        return None
    return copied


def is_form_values(value: object) -> TypeGuard[FormValues]:
    """Narrows an unknown value to `FormValues`: a dict whose keys are strings and whose values
    are strings, finite numbers, booleans or lists of strings (`None` is never a value)."""
    return copy_values(value) is not None


def is_field_error(value: object) -> TypeGuard[FieldError]:
    """Narrows an unknown value to a `FieldError`: `field` and `message` strings and, when
    present, a known `rule` name, with no other key."""
    if type(value) is not dict:
        return False
    try:
        keys = set(dict.keys(value))
        if not {"field", "message"} <= keys <= {"field", "message", "rule"}:
            return False
        rule = dict.get(value, "rule", "required")
        return (
            type(dict.__getitem__(value, "field")) is str
            and type(dict.__getitem__(value, "message")) is str
            and rule in FIELD_RULES
        )
    except Exception:
        return False


def is_form_schema(value: object) -> TypeGuard[FormSchema]:
    """Narrows an unknown value to a `FormSchema`: exactly the document's structure, passing
    every audit check (a `custom` rule is allowed in process)."""
    from orkestrel.form.helpers import explain_form

    return not explain_form(value)


def matches_answer(value: object) -> bool:
    """Determines whether a value counts as an answer a person gave: `False` for `None` and
    for a string of whitespace only, `True` otherwise (`[]`, `False` and `0` included)."""
    if value is None:
        return False
    return not (isinstance(value, str) and not value.strip())


def control_fault(field: FormField, value: Any) -> str | None:
    """Says why `value` cannot be held by `field`'s control, or `None` when it fits.

    Choice fields also refuse a value that is not among their enabled choices (an `open`
    select admits any string), and list answers hold at most `LIST_LIMIT` entries.
    """
    control = field["control"]
    if control == "number":
        return None if is_number(value) else "expects a finite number"
    if control == "confirm":
        return None if type(value) is bool else "expects true or false"
    if control in ("checkbox", "file"):
        return _list_fault(field, value)
    if type(value) is not str:
        return "expects a string"
    if len(value) > STRING_LIMIT:
        return f"holds at most {STRING_LIMIT} characters"
    shape = FORMATS.get(control)
    if shape is not None and shape.match(value) is None:
        return f"expects a {control} written as {_FORMAT_NAMES[control]}"
    if control == "select" and not field.get("open", False) and value not in _enabled(field):
        return f"expects one of its enabled choices, not {value!r}"
    return None


_FORMAT_NAMES = {
    "date": "YYYY-MM-DD",
    "time": "HH:MM or HH:MM:SS",
    "datetime": "YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS",
    "color": "#rrggbb",
}


def _enabled(field: Any) -> set[str]:
    return {choice["value"] for choice in field.get("choices", []) if not choice.get("disabled")}


def _list_fault(field: Any, value: Any) -> str | None:
    if not _is_text_list(value):
        return "expects a list of strings"
    if len(value) > LIST_LIMIT:
        return f"holds at most {LIST_LIMIT} entries"
    if any(len(item) > STRING_LIMIT for item in value):
        return f"holds strings of at most {STRING_LIMIT} characters"
    if field["control"] == "file":
        if len(value) > 1 and not field.get("multiple", False):
            return "expects one file name"
        return None if all(value) else "expects non-empty file names"
    if len(set(value)) != len(value):
        return "expects distinct choices"
    enabled = _enabled(field)
    stray = next((item for item in value if item not in enabled), None)
    return None if stray is None else f"expects its enabled choices, not {stray!r}"
