"""Unknown keys in a call's arguments: a closed object of the tool's schema (`additionalProperties:
false`) refuses a key it does not declare, at any depth, naming the key, its path and the
nearest declared name, where the contract's parse would drop it without a word."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from orkestrel.contract import preview
from orkestrel.toolbox.errors import ToolboxError

Finding = tuple[tuple[Any, ...], str, list[str]]
"""Where an unknown key sits (the path to its object), the key, and the object's known keys."""


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
