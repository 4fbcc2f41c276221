"""Rewriting a parameter schema into OpenAI's strict-mode subset, recording every change.

The rules follow OpenAI's Structured Outputs guide, section "Supported schemas": every object
lists all its properties in `required` and sets `additionalProperties: false`; an optional
property is emulated by a union with `null`; only the keywords below are accepted; `allOf`,
`not`, `if`/`then`/`else` and the `dependent*` keywords are refused; `$defs` and recursion are
allowed. A `$ref` may not carry sibling keywords (pydantic/pydantic-ai#1488).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from orkestrel.tool.errors import ExportError
from orkestrel.tool.freeform import encode_free_places
from orkestrel.tool.lean import lean_schema
from orkestrel.tool.schemas import (
    ExportAction,
    Report,
    admits_null,
    copy_schema,
    object_root,
    pointer,
    resolve,
)

STRICT_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "title",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "const",
        "$ref",
        "$defs",
        "definitions",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
"""The keywords OpenAI's strict mode documents as supported."""

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""The string formats OpenAI's strict mode documents as supported."""

STRICT_OBJECT_DEPTH = 10
STRICT_PROPERTY_LIMIT = 5000
STRICT_ENUM_LIMIT = 1000


def strict_schema(schema: dict[str, Any], report: Report, *, quote: bool = True) -> dict[str, Any]:
    """Rewrites a copied object schema in place for OpenAI strict mode and returns it.

    Places strict mode cannot describe (an object with free keys, a value of any type) become
    JSON text first (`orkestrel.tool.freeform`; `quote` puts their original schema in the
    description); a property that takes any value raises `ExportError`.
    """
    encode_free_places(schema, report, quote=quote)
    for key in ("$defs", "definitions"):
        defs = schema.get(key)
        if isinstance(defs, dict):
            for name, item in list(defs.items()):
                if isinstance(item, dict):
                    defs[name] = _node(item, schema, pointer("", key, name), report, 0)
    _node(schema, schema, "", report, 0)
    _limits(schema, report)
    return schema


def strict_parameters(parameters: Any, tool: str, *, lean: bool = False) -> dict[str, Any] | None:
    """The strict-mode rendering of a tool's parameter schema (as `export(..., strict=True)`
    writes it), or `None` where the schema has none: a property that takes any value, or a
    place strict mode flags (no type, past its limits). The input is not modified.

    With `lean`, the rendering is in its lean form (`lean_schema`): the same values accepted,
    one description per argument, and a JSON text argument's schema left to `describe`."""
    changes: list[Any] = []
    report = Report(tool, changes)
    try:
        root = object_root(copy_schema(parameters, tool), report)
        rendered = strict_schema(root, report, quote=not lean)
    except ExportError:
        return None
    if any(change["action"] == "flagged" for change in changes):
        return None
    return lean_schema(rendered) if lean else rendered


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Returns a schema that also accepts `null`, as lean as the original allows."""
    if admits_null(schema):
        return schema
    kind = schema.get("type")
    if "enum" not in schema and "const" not in schema and "$ref" not in schema:
        if isinstance(kind, str):
            return {**schema, "type": [kind, "null"]}
        if isinstance(kind, list):
            return {**schema, "type": [*kind, "null"]}
    if isinstance(schema.get("anyOf"), list):
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    inner = {key: value for key, value in schema.items() if key != "description"}
    wrapped: dict[str, Any] = {"anyOf": [inner, {"type": "null"}]}
    if "description" in schema:
        wrapped["description"] = schema["description"]
    return wrapped


def _node(
    node: dict[str, Any], root: dict[str, Any], path: str, report: Report, hops: int
) -> dict[str, Any]:
    if "$ref" in node and len(node) > 1 and hops < 8:
        siblings = {key: value for key, value in node.items() if key != "$ref"}
        inlined = {**copy.deepcopy(resolve(root, node["$ref"], report.tool)), **siblings}
        node.clear()
        node.update(inlined)
        report.add(path, "$ref", "changed", "inlined: strict mode refuses keywords beside $ref")
        return _node(node, root, path, report, hops + 1)
    _keywords(node, path, report)
    if node.get("type") == "object" or "properties" in node:
        _object(node, root, path, report)
    for key in ("items", "additionalProperties"):
        child = node.get(key)
        if isinstance(child, dict):
            node[key] = _node(child, root, pointer(path, key), report, 0)
    if isinstance(node.get("anyOf"), list):
        node["anyOf"] = [
            _node(arm, root, pointer(path, "anyOf", i), report, 0) if isinstance(arm, dict) else arm
            for i, arm in enumerate(node["anyOf"])
        ]
    if not any(key in node for key in ("type", "anyOf", "$ref", "enum", "const")):
        report.add(path, "type", "flagged", "strict mode needs a type for every value")
    return node


def _keywords(node: dict[str, Any], path: str, report: Report) -> None:
    if "oneOf" in node and "anyOf" not in node:
        node["anyOf"] = node.pop("oneOf")
        report.add(path, "oneOf", "changed", "became anyOf: strict mode has no oneOf")
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        del node["allOf"]
        for key, value in all_of[0].items():
            node.setdefault(key, value)
        report.add(path, "allOf", "changed", "its single schema is merged in: no allOf")
    if "default" in node:
        default = node.pop("default")
        text = json.dumps(default, ensure_ascii=False)
        note = f"Default: {text}." if default is not None and len(text) <= 80 else ""
        if note:
            current = node.get("description")
            node["description"] = f"{current} ({note})" if isinstance(current, str) else note
        reason = "strict mode has no default" + (
            "; it is stated in the description" if note else ""
        )
        report.add(path, "default", "dropped", reason)
    fmt = node.get("format")
    if fmt is not None and fmt not in STRICT_FORMATS:
        del node["format"]
        report.add(path, "format", "dropped", f"strict mode does not support format {fmt!r}")
    for key in [key for key in node if key not in STRICT_KEYWORDS]:
        del node[key]
        report.add(path, key, "dropped", "not in OpenAI's strict-mode subset")


def _object(node: dict[str, Any], root: dict[str, Any], path: str, report: Report) -> None:
    properties = node.get("properties")
    if not isinstance(properties, dict):
        properties = node["properties"] = {}
        report.add(path, "properties", "added", "strict mode needs the properties listed")
    extra = node.get("additionalProperties")
    if extra is not False:
        node["additionalProperties"] = False
        action: ExportAction = "added" if extra is None else "changed"
        report.add(path, "additionalProperties", action, "strict mode refuses undeclared keys")
    listed = node.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    for name, child in list(properties.items()):
        here = pointer(path, "properties", name)
        if isinstance(child, dict):
            child = _node(child, root, here, report, 0)
            if name not in required:
                child = nullable(child)
                report.add(here, "required", "changed", "now required and nullable: null = absent")
            properties[name] = child
    if list(properties) != required or "required" not in node:
        node["required"] = list(properties)


def _limits(schema: dict[str, Any], report: Report) -> None:
    counts = {"properties": 0, "enum": 0, "depth": 0}
    stack: list[tuple[Any, int]] = [(schema, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                counts["properties"] += len(node["properties"])
                depth += 1
                counts["depth"] = max(counts["depth"], depth)
            if isinstance(node.get("enum"), list):
                counts["enum"] += len(node["enum"])
            stack.extend((value, depth) for value in node.values())
        elif isinstance(node, list):
            stack.extend((value, depth) for value in node)
    if counts["depth"] > STRICT_OBJECT_DEPTH:
        report.add("", "properties", "flagged", f"objects nest past {STRICT_OBJECT_DEPTH} levels")
    if counts["properties"] > STRICT_PROPERTY_LIMIT:
        report.add("", "properties", "flagged", f"more than {STRICT_PROPERTY_LIMIT} properties")
    if counts["enum"] > STRICT_ENUM_LIMIT:
        report.add("", "enum", "flagged", f"more than {STRICT_ENUM_LIMIT} enum values in all")
