"""What a field's control holds: the check that a value fits it, below the reader, the audit
and the guards, which all apply it.
"""

from __future__ import annotations

import math
from typing import Any

from orkestrel.form.constants import LIST_LIMIT, STRING_LIMIT
from orkestrel.form.patterns import FORMATS
from orkestrel.form.types import FormField


def is_number(value: object) -> bool:
    """Whether a value is a finite `int` or `float` (never a `bool`)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def is_text_list(value: object) -> bool:
    """Whether a value is a plain list of plain strings."""
    return type(value) is list and all(type(item) is str for item in value)


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
    if not is_text_list(value):
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
