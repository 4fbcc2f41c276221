"""A plain-Python statement of the query semantics, to check the engines against.

It reads rows as dicts (absent and None are the same), coerces operands the way the layer
does, folds conditions left to right with each connector joining the next condition, sorts
with absent cells first, breaks ties by key, and pages.
"""

from __future__ import annotations

import itertools
import re
from functools import cmp_to_key
from typing import Any

from orkestrel.database.helpers import (
    canonical_json,
    parse_boolean,
    parse_number,
    parse_string,
)

PARSERS = {
    "string": parse_string,
    "integer": parse_number,
    "number": parse_number,
    "boolean": parse_boolean,
}


def wildcard(pattern: str, any_run: str, one: str, *, fold: bool) -> re.Pattern[str]:
    """Translates a like / glob pattern into an anchored regular expression."""
    if fold:
        pattern = pattern.lower()
    parts = [".*" if c == any_run else "." if c == one else re.escape(c) for c in pattern]
    return re.compile("".join(parts), re.DOTALL)


def _operand(kind: str, value: Any) -> Any:
    if kind == "json":
        return canonical_json(value)
    return PARSERS[kind](value)


def _cell(kind: str, value: Any) -> Any:
    if value is None:
        return None
    return canonical_json(value) if kind == "json" else value


def matches(row: dict[str, Any], condition: dict[str, Any], types: dict[str, str]) -> bool:
    """Evaluates one condition against one row."""
    column, operator, values = condition["column"], condition["operator"], condition["values"]
    kind = types[column]
    v = _cell(kind, row.get(column))
    if operator == "absent":
        return v is None
    if operator == "present":
        return v is not None
    if operator in ("any", "none"):
        present = {_operand(kind, x) for x in values if x is not None}
        has_null = any(x is None for x in values)
        hit = (v is not None and v in present) or (has_null and v is None)
        return hit if operator == "any" else not hit
    if operator in ("like", "glob", "starts", "ends"):
        text = parse_string(values[0])
        if not isinstance(v, str) or text is None:
            return False
        if operator == "like":
            return wildcard(text, "%", "_", fold=True).fullmatch(v.lower()) is not None
        if operator == "glob":
            return wildcard(text, "*", "?", fold=False).fullmatch(v) is not None
        return v.startswith(text) if operator == "starts" else v.endswith(text)
    if operator in ("equals", "not") and values[0] is None:
        return (v is None) == (operator == "equals")
    a = _operand(kind, values[0])
    if operator == "equals":
        return v is not None and v == a
    if operator == "not":
        return v is None or v != a
    if operator == "above":
        return v is not None and v > a
    if operator == "below":
        return v is None or v < a
    if operator == "from":
        return v is not None and v >= a
    if operator == "to":
        return v is None or v <= a
    b = _operand(kind, values[1])
    return v is not None and a <= v <= b


def fold(row: dict[str, Any], conditions: list[dict[str, Any]], types: dict[str, str]) -> bool:
    """Folds the conditions left to right; each connector joins its condition to the next."""
    if not conditions:
        return True
    result = matches(row, conditions[0], types)
    for previous, condition in itertools.pairwise(conditions):
        hit = matches(row, condition, types)
        result = (result or hit) if previous.get("connector") == "or" else (result and hit)
    return result


def _compare(a: Any, b: Any) -> int:
    if a is None or b is None:
        return (a is not None) - (b is not None)
    return (a > b) - (a < b)


def select(
    rows: list[dict[str, Any]], query: dict[str, Any], types: dict[str, str], primary: str
) -> list[Any]:
    """Returns the keys a query selects, in order."""
    hits = [r for r in rows if fold(r, query.get("conditions", []), types)]
    terms = [(t["column"], t.get("direction", "ascending")) for t in query.get("order", [])]
    terms.append((primary, "ascending"))

    def compare(x: dict[str, Any], y: dict[str, Any]) -> int:
        for column, direction in terms:
            order = _compare(x.get(column), y.get(column))
            if order:
                return order if direction == "ascending" else -order
        return 0

    hits.sort(key=cmp_to_key(compare))
    offset = query.get("offset") or 0
    limit = query.get("limit")
    page = hits[offset:] if limit is None else hits[offset : offset + limit]
    return [r[primary] for r in page]
