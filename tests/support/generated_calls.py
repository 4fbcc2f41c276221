"""Calls generated from tool schemas, and what strict mode makes of a call.

`from_listed_schema` is hypothesis-jsonschema's `from_schema`. Its object strategy still calls
`many.more()`, which Hypothesis 6.170 replaced by iterating the `many` inside a `with`; the
adapter below gives it that old method on the new object, for this strategy only.
"""

from __future__ import annotations

import json
import types
from typing import Any

from hypothesis import strategies as st
from hypothesis.internal.conjecture import utils as conjecture


class _Many:
    """The old `more()`/`reject()` face of Hypothesis's `many`, over its new iterator."""

    __slots__ = ("_many", "_steps")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._many = conjecture.many(*args, **kwargs)
        self._steps: Any = None

    def more(self) -> bool:
        if self._steps is None:
            self._many.__enter__()
            self._steps = iter(self._many)
        try:
            next(self._steps)
        except StopIteration:
            self._many.__exit__(None, None, None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)


def from_listed_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """hypothesis-jsonschema's strategy for the values `schema` accepts."""
    from hypothesis_jsonschema import _from_schema, from_schema

    if not hasattr(conjecture.many, "more"):
        names = {name: getattr(conjecture, name) for name in dir(conjecture)}
        _from_schema.cu = types.SimpleNamespace(**{**names, "many": _Many})  # type: ignore[attr-defined]
    return from_schema(schema)


_KINDS = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def _kinds(schema: Any) -> list[str]:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list) else []


def _fits(value: Any, kinds: list[str]) -> bool:
    if isinstance(value, bool):
        return "boolean" in kinds
    if isinstance(value, int):
        return "integer" in kinds or "number" in kinds
    if isinstance(value, float):
        return "number" in kinds
    return _KINDS.get(type(value), "") in kinds


def strict_value(value: Any, listed: Any) -> Any:
    """`value` as a model in strict mode sends it against the `listed` schema: every listed
    property present (`null` where the value has none), and JSON text where the listing asks
    for a string and the value is an object or an array."""
    if isinstance(listed, dict) and isinstance(listed.get("anyOf"), list):
        arm = next((arm for arm in listed["anyOf"] if _fits(value, _kinds(arm))), None)
        return strict_value(value, arm) if arm is not None else value
    kinds = _kinds(listed)
    if isinstance(value, dict | list) and not _fits(value, kinds) and "string" in kinds:
        return json.dumps(value)
    if isinstance(value, dict) and isinstance(listed.get("properties"), dict):
        return {
            name: strict_value(value.get(name), schema)
            for name, schema in listed["properties"].items()
        }
    if isinstance(value, list) and isinstance(listed.get("items"), dict):
        return [strict_value(item, listed["items"]) for item in value]
    return value


def refused(result: dict[str, Any]) -> bool:
    """Whether a `ToolManager` result is the tool refusing the call's arguments (a malformed
    call), as opposed to succeeding or failing on what the arguments name."""
    return not result.get("success", False) and "malformed" in str(result.get("error", ""))
