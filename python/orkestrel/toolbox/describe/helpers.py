"""What `describe(name, operation)` answers: one operation's exact schema and an example call."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_EXAMPLE_DEPTH = 12


def operation_text(name: str, operation: str, schema: Mapping[str, Any]) -> str:
    """The answer for one operation of tool `name`: its summary line, its exact call schema as
    compact JSON, and a smallest example call built from that schema."""
    tag = schema.get("properties", {}).get("operation", {})
    what = tag.get("description") if isinstance(tag, Mapping) else None
    head = f"{name} {operation}" + (f": {what}" if isinstance(what, str) and what else "")
    shown = json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    example = json.dumps(example_value(schema, "value"), separators=(",", ":"), ensure_ascii=False)
    return (
        f"{head}\nExact schema (JSON Schema of the call; required fields listed): {shown}\n"
        f"Example: {example}\nWhere the tool lists a field as JSON text, send that field's "
        "value as a string of JSON."
    )


def example_value(schema: Any, label: str, depth: int = 0) -> Any:
    """A smallest value `schema` accepts: required properties only, the first of each `enum`
    or `anyOf`, one item or entry where one is needed, `<label>` for a string."""
    if not isinstance(schema, Mapping) or depth > _EXAMPLE_DEPTH:
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    arms = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(arms, list) and arms:
        return example_value(arms[0], label, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        return _object(schema, depth)
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        return [example_value(schema.get("items", {}), label, depth + 1) for _ in range(count)]
    if kind == "string":
        return f"<{label}>"
    if kind in ("integer", "number"):
        return max(1, int(schema.get("minimum", 1)))
    if kind == "boolean":
        return True
    return None


def _object(schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    value = {
        name: example_value(properties[name], name, depth + 1)
        for name in properties
        if name in required
    }
    extra = schema.get("additionalProperties")
    if not value and isinstance(extra, Mapping) and not properties:
        value["name"] = example_value(extra, "value", depth + 1)
    return value
