"""Text helpers shared by error messages: JavaScript-compatible number text and previews."""

from __future__ import annotations

import math
from typing import Any

PREVIEW_LIMIT = 64
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def number_to_string(value: float) -> str:
    """Formats a number as ECMAScript `String(number)` does: `5.0` is `5`, `1e21` is `1e+21`."""
    if isinstance(value, int):
        if abs(value) <= 2**53:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            return "Infinity" if value > 0 else "-Infinity"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    stripped = raw.lstrip("0")
    point = len(whole) + (int(exp) if exp else 0) - (len(raw) - len(stripped))
    digits = stripped.rstrip("0") or "0"
    count = len(digits)
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    power = point - 1
    text = digits[0] + ("." + digits[1:] if count > 1 else "")
    return f"{sign}{text}e{'+' if power >= 0 else '-'}{abs(power)}"


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    if code < 0x20 or 0xD800 <= code <= 0xDFFF:
        return f"\\u{code:04x}"
    return char


def _units(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def preview(value: Any) -> str:
    """Renders a short, safe description of a value for an error's `received` field.

    Strings are JSON-quoted and cut near 64 UTF-16 units with `…`; numbers and booleans use
    JavaScript text; lists are `array`; anything else is `object` or `function`.
    """
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number_to_string(value)
    if isinstance(value, str):
        text = '"'
        for char in value:
            token = _escape(char)
            if _units(text) + _units(token) > PREVIEW_LIMIT:
                return text + "…"
            text += token
        return text + '"' if _units(text) < PREVIEW_LIMIT else text + "…"
    if isinstance(value, list):
        return "array"
    return "function" if callable(value) else "object"
