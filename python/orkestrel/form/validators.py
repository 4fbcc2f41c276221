"""Guards at the form's untrusted boundary."""

from __future__ import annotations

from typing import TypeGuard

from orkestrel.form.constants import FIELD_RULES
from orkestrel.form.controls import is_number, is_text_list
from orkestrel.form.helpers import explain_form
from orkestrel.form.types import FieldError, FieldValue, FormSchema, FormValues


def copy_value(value: object) -> FieldValue | None:
    """A fresh plain copy of one answer, or `None` when it is not a `FieldValue`."""
    if isinstance(value, str | bool) and type(value) in (str, bool):
        return value
    if isinstance(value, int | float) and type(value) in (int, float):
        return value if is_number(value) else None
    if isinstance(value, list) and is_text_list(value):
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
    return not explain_form(value)


def matches_answer(value: object) -> bool:
    """Determines whether a value counts as an answer a person gave: `False` for `None` and
    for a string of whitespace only, `True` otherwise (`[]`, `False` and `0` included)."""
    if value is None:
        return False
    return not (isinstance(value, str) and not value.strip())
