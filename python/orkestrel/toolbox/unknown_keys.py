"""Unknown keys in a call's arguments: a closed object of the tool's schema (`additionalProperties:
false`) refuses a key it does not declare, at any depth, naming the key, its path and the
nearest declared name, where the contract's parse would drop it without a word."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from orkestrel.contract import preview
from orkestrel.toolbox.errors import ToolboxError

Finding = tuple[tuple[Any, ...], str, list[str]]
"""Where an unknown key sits (the path to its object), the key, and the object's known keys."""
KeyCheck = Callable[[Any], bool]
"""`unknown_key(schema, value) is None` for one schema, compiled by `key_check`."""
_ABSENT = object()


def unknown_key(schema: Any, value: Any, path: tuple[Any, ...] = ()) -> Finding | None:
    """The first key of `value` that a closed object of `schema` does not declare, or `None`.

    Only what the schema describes is walked (`properties`, `additionalProperties`, `items`,
    `anyOf` / `oneOf`), so the walk is as deep as the schema, whatever `value` holds; a value
    of another type is the parse's to refuse.
    """
    if not isinstance(schema, Mapping):
        return None
    variants = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(variants, Sequence) and variants:
        return _variants(variants, value, path)
    if isinstance(value, dict):
        return _object(schema, value, path)
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping):
        for index, item in enumerate(value):
            found = unknown_key(items, item, (*path, index))
            if found is not None:
                return found
    return None


def _variants(variants: Sequence[Any], value: Any, path: tuple[Any, ...]) -> Finding | None:
    first: Finding | None = None
    for variant in variants:
        found = unknown_key(variant, value, path)
        if found is None:
            return None
        first = first or found
    return first


def _object(
    schema: Mapping[str, Any], value: dict[Any, Any], path: tuple[Any, ...]
) -> Finding | None:
    if "properties" not in schema and "additionalProperties" not in schema:
        return None
    properties = schema.get("properties")
    declared: Mapping[str, Any] = properties if isinstance(properties, Mapping) else {}
    extra = schema.get("additionalProperties", True)
    for key, item in dict.items(value):  # its storage: a subclass's methods never run
        if key in declared:
            found = unknown_key(declared[key], item, (*path, key))
        elif extra is False:
            return path, str(key), [str(name) for name in declared]
        else:
            found = unknown_key(extra, item, (*path, key))
        if found is not None:
            return found
    return None


def key_check(schema: Any) -> KeyCheck | None:
    """`unknown_key(schema, value) is None`, compiled once for a schema: `None` when no value
    can hold an unknown key. The check walks what `unknown_key` walks, but looks up each
    object's keys in one set and builds no paths; `unknown_key` finds the key it refuses."""
    if not isinstance(schema, Mapping):
        return None
    variants = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(variants, Sequence) and variants:
        checks = [key_check(variant) for variant in variants]
        if any(check is None for check in checks):
            return None
        kept: list[KeyCheck] = [check for check in checks if check is not None]
        return lambda value: any(check(value) for check in kept)
    whole = _object_check(schema)
    items = schema.get("items")
    each = key_check(items) if isinstance(items, Mapping) else None
    if whole is None and each is None:
        return None

    def check(value: Any) -> bool:
        if isinstance(value, dict):
            return whole is None or whole(value)
        if each is not None and isinstance(value, list):
            return all(each(item) for item in value)
        return True

    return check


def _object_check(schema: Mapping[str, Any]) -> KeyCheck | None:
    if "properties" not in schema and "additionalProperties" not in schema:
        return None
    properties = schema.get("properties")
    declared: Mapping[str, Any] = properties if isinstance(properties, Mapping) else {}
    extra = schema.get("additionalProperties", True)
    closed = extra is False
    names = frozenset(declared)
    inner = [(key, key_check(child)) for key, child in declared.items()]
    nested = [(key, check) for key, check in inner if check is not None]
    rest = None if closed else key_check(extra)
    if not closed and not nested and rest is None:
        return None

    def check(value: dict[Any, Any]) -> bool:
        keys = dict.keys(value)  # its storage: a subclass's methods never run
        if closed and not names.issuperset(keys):
            return False
        for key, child in nested:
            item = dict.get(value, key, _ABSENT)
            if item is not _ABSENT and not child(item):
                return False
        if rest is not None:
            for key, item in dict.items(value):
                if key not in names and not rest(item):
                    return False
        return True

    return check


def unknown_key_error(
    finding: Finding, label: str, context: Mapping[str, Any] | None = None
) -> ToolboxError:
    """The `TOOL` error that names an unknown key, where it is, and the nearest known name."""
    path, key, known = finding
    where = "".join(_step(step) for step in path)
    shown = preview(key)
    near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" (did you mean {near[0]}?)" if near else f" (known: {', '.join(known)})"
    place = f" in {where.removeprefix('.')}" if where else ""
    return ToolboxError(
        "TOOL",
        f"{label}: unknown argument {shown}{place}{hint}",
        {**(context or {}), "path": [*path, key], "known": known},
    )


def _step(step: Any) -> str:
    if isinstance(step, int):
        return f"[{step}]"
    text = str(step)
    return f".{text}" if text.isidentifier() and len(text) <= 64 else f"[{preview(text)}]"


def refuse_unknown_keys(
    schema: Any, args: Any, label: str, context: Mapping[str, Any] | None = None
) -> None:
    """Raises `unknown_key_error` for the first unknown key of `args` under `schema`, its
    context carrying `context` too."""
    found = unknown_key(schema, args)
    if found is not None:
        raise unknown_key_error(found, label, context)
