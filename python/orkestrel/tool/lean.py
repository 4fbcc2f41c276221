"""The lean form of a strict parameter schema: the same values accepted, in fewer tokens.

A tool's definition is paid for on every model turn, so what a server lists keeps one
description per argument (the root's properties) and writes each union as briefly as JSON
Schema allows. The detail left out (the descriptions inside an argument, the schema of a JSON
text argument) stays one `describe` call away.
"""

from __future__ import annotations

import json
from typing import Any

_SIMPLE = frozenset({"type", "items"})

LEAN_OBJECT_LIMIT = 300
"""The most characters of compact JSON an object argument's lean schema may take in a listing;
a larger one is listed as JSON text of the object (which `ToolManager.execute` parses back)."""


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrites a strict root object schema in place into its lean form and returns it.

    Each root property keeps its own `description`; every description below one is dropped.
    An object argument whose lean schema takes more than `LEAN_OBJECT_LIMIT` characters is
    listed as JSON text of it, as strict mode lists an object with free keys. A union of plain
    types (`anyOf` of `{type}` arms, at most one of them an array with its
    `items`) becomes one `type` list, a nested union is spliced into its parent, a repeated arm
    is kept once, and a union of a string `enum` with `null` becomes a nullable `enum`. Nothing
    else changes which values the schema accepts.
    """
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, child in list(properties.items()):
            if isinstance(child, dict):
                kept = child.get("description")
                lean = _as_text(_node(child))
                if isinstance(kept, str):
                    text = lean.pop("description", None)
                    lean["description"] = f"{kept} {text}" if text else kept
                properties[name] = lean
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            schema[key] = {name: _node(item) for name, item in defs.items()}
    return schema


def _node(node: Any) -> Any:
    if isinstance(node, list):
        return [_node(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description":
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _node(child) for name, child in value.items()}
        elif key in ("items", "additionalProperties", "anyOf"):
            out[key] = _node(value)
        else:
            out[key] = value
    arms = out.get("anyOf")
    if isinstance(arms, list):
        merged = _union(arms)
        if merged is not None:
            del out["anyOf"]
            if not set(merged) & set(out):
                out.update(merged)
            else:
                out["anyOf"] = [merged]
    return out


def _union(arms: list[Any]) -> dict[str, Any] | None:
    """The briefest schema for a union of the given (already lean) arms, or `None` to keep it."""
    spliced: list[Any] = []
    seen: set[str] = set()
    for arm in arms:
        inner = arm.get("anyOf") if isinstance(arm, dict) and len(arm) == 1 else None
        for item in inner if isinstance(inner, list) else [arm]:
            text = json.dumps(item, sort_keys=True)
            if text not in seen:
                seen.add(text)
                spliced.append(item)
    types = _types(spliced)
    if types is not None:
        return types
    enum = _nullable_enum(spliced)
    if enum is not None:
        return enum
    if len(spliced) == 1 and isinstance(spliced[0], dict):
        return dict(spliced[0])
    return {"anyOf": spliced}


def _types(arms: list[Any]) -> dict[str, Any] | None:
    kinds: list[str] = []
    items: Any = None
    for arm in arms:
        if not isinstance(arm, dict) or not set(arm) <= _SIMPLE or "type" not in arm:
            return None
        kind = arm["type"]
        named = [kind] if isinstance(kind, str) else kind
        if not isinstance(named, list) or not all(isinstance(k, str) for k in named):
            return None
        if "items" in arm:
            if items is not None or "array" not in named:
                return None
            items = arm["items"]
        elif "array" in named:
            return None
        kinds.extend(k for k in named if k not in kinds)
    merged: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
    if items is not None:
        merged["items"] = items
    return merged


def _nullable_enum(arms: list[Any]) -> dict[str, Any] | None:
    if len(arms) != 2 or {"type": "null"} not in arms:
        return None
    other = arms[0] if arms[1] == {"type": "null"} else arms[1]
    values = other.get("enum") if isinstance(other, dict) and set(other) == {"enum"} else None
    if not isinstance(values, list) or not values:
        return None
    if all(isinstance(value, bool) for value in values) and len(set(values)) == 2:
        return {"type": ["boolean", "null"]}
    if not all(isinstance(value, str) for value in values):
        return None
    return {"type": ["string", "null"], "enum": [*values, None]}


def _as_text(node: dict[str, Any]) -> dict[str, Any]:
    kind = node.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    if "object" not in kinds or len(json.dumps(node, separators=(",", ":"))) <= LEAN_OBJECT_LIMIT:
        return node
    nullable = "null" in kinds
    return {"type": ["string", "null"] if nullable else "string", "description": "JSON text."}
