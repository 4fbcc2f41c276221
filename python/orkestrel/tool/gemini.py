"""Rewriting a parameter schema into the OpenAPI subset Gemini's function declarations accept.

The keyword list follows the Gemini API reference for `Schema` ("a select subset of an OpenAPI
3.0 schema object"): one `type` per schema with `nullable` for null, string-only `enum`, a few
formats per type, no references. So every `$ref` is inlined (a recursive one is cut after
`GEMINI_RECURSION_DEPTH` expansions), and every other keyword is dropped or rewritten, and recorded.
"""

from __future__ import annotations

import json
import re
from typing import Any

from orkestrel.tool.errors import ExportError
from orkestrel.tool.schemas import EXPORT_DEPTH_LIMIT, EXPORT_NODE_LIMIT, Report, pointer, resolve

GEMINI_KEYWORDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    }
)
"""The fields of Gemini's `Schema` object."""

GEMINI_FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "number": frozenset({"float", "double"}),
    "integer": frozenset({"int32", "int64"}),
}
"""The formats Gemini accepts, per type."""

GEMINI_RECURSION_DEPTH = 2
"""How many times one definition may be expanded along a path; the next reference is cut."""

GEMINI_PROPERTY_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
"""Gemini's rule for parameter names: a letter or `_` first, then letters, digits or `_`."""

_NULL_ARM = {"type": "null"}


def gemini_schema(schema: dict[str, Any], report: Report) -> dict[str, Any] | None:
    """Renders a copied object schema for Gemini; `None` when it declares no property."""
    inliner = _Inliner(schema, report)
    result: dict[str, Any] = inliner.node(schema, "", (), 0)
    for key in ("$defs", "definitions"):
        if key in schema:
            report.add("", key, "changed", "every reference is inlined: Gemini has no $ref")
    if not result.get("properties"):
        report.add("", "parameters", "dropped", "Gemini wants no parameters for a no-argument tool")
        return None
    return result


class _Inliner:
    __slots__ = ("budget", "report", "root")

    def __init__(self, root: dict[str, Any], report: Report) -> None:
        self.root = root
        self.report = report
        self.budget = EXPORT_NODE_LIMIT

    def node(self, schema: dict[str, Any], path: str, stack: tuple[str, ...], depth: int) -> Any:
        self.budget -= 1
        if self.budget < 0 or depth > EXPORT_DEPTH_LIMIT:
            raise ExportError(
                f"tool {self.report.tool!r}: inlining references for gemini grows the schema "
                f"past {EXPORT_NODE_LIMIT} nodes or {EXPORT_DEPTH_LIMIT} levels"
            )
        schema, stack = self._dereference(dict(schema), path, stack)
        schema = self._normalize(schema, path)
        out: dict[str, Any] = {}
        notes: list[str] = []
        nullable = False
        hoisted: dict[str, Any] | None = None
        for key, value in schema.items():
            here = pointer(path, key)
            if key == "type" and isinstance(value, list):
                kinds = [kind for kind in value if kind != "null"]
                nullable = nullable or len(kinds) < len(value)
                if len(kinds) == 1:
                    out["type"] = kinds[0]
                else:
                    out["anyOf"] = [{"type": kind} for kind in kinds]
                self.report.add(path, key, "changed", "one type per schema, with nullable: true")
            elif key == "anyOf" and isinstance(value, list):
                arms = [arm for arm in value if arm != _NULL_ARM and isinstance(arm, dict)]
                if len(arms) < len(value):
                    nullable = True
                    self.report.add(path, key, "changed", "its null arm became nullable: true")
                done = [
                    self.node(arm, pointer(here, i) if len(arms) > 1 else path, stack, depth + 1)
                    for i, arm in enumerate(arms)
                ]
                if len(done) == 1:
                    hoisted = done[0]
                elif done:
                    out["anyOf"] = done
            elif key == "properties" and isinstance(value, dict):
                out[key] = {}
                for name, child in value.items():
                    where = pointer(here, name)
                    if not GEMINI_PROPERTY_NAME.match(name):
                        self.report.add(where, "properties", "flagged", "Gemini refuses this name")
                    if isinstance(child, dict):
                        out[key][name] = self.node(child, where, stack, depth + 1)
            elif key == "items" and isinstance(value, dict):
                out[key] = self.node(value, here, stack, depth + 1)
            elif key in ("enum", "const"):
                nullable = self._enum(key, value, path, out, notes) or nullable
            elif key == "format":
                self._format(value, schema.get("type"), path, out, notes)
            elif key in ("exclusiveMinimum", "exclusiveMaximum"):
                self._exclusive(key, value, schema.get("type"), path, out)
            elif key == "examples" and isinstance(value, list) and value:
                out.setdefault("example", value[0])
                self.report.add(path, key, "changed", "became example: Gemini takes one")
            elif key in GEMINI_KEYWORDS and key not in ("anyOf", "properties", "items"):
                out[key] = value
            elif key not in ("$defs", "definitions"):
                self.report.add(path, key, "dropped", "not in Gemini's schema subset")
        if nullable:
            out["nullable"] = True
        if notes:
            text = "; ".join(notes)
            current = out.get("description")
            out["description"] = f"{current} ({text})" if isinstance(current, str) else text
        if hoisted is not None:
            out = {**hoisted, **out}
        self._flag(out, path)
        return out

    def _dereference(
        self, schema: dict[str, Any], path: str, stack: tuple[str, ...]
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        while "$ref" in schema:
            ref = schema.pop("$ref")
            target = resolve(self.root, ref, self.report.tool)
            if stack.count(ref) >= GEMINI_RECURSION_DEPTH:
                stub: dict[str, Any] = {"type": target.get("type", "object")}
                if isinstance(target.get("description"), str):
                    stub["description"] = target["description"]
                self.report.add(
                    path,
                    "$ref",
                    "changed",
                    f"recursive {ref} cut after {GEMINI_RECURSION_DEPTH} expansions: "
                    "deeper levels are not described",
                )
                return {**stub, **schema}, stack
            schema = {**target, **schema}
            stack = (*stack, ref)
        return schema, stack

    def _normalize(self, schema: dict[str, Any], path: str) -> dict[str, Any]:
        if "oneOf" in schema and "anyOf" not in schema:
            schema["anyOf"] = schema.pop("oneOf")
            self.report.add(path, "oneOf", "changed", "became anyOf: Gemini has no oneOf")
        all_of = schema.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
            del schema["allOf"]
            schema = {**all_of[0], **schema}
            self.report.add(path, "allOf", "changed", "its single schema is merged in")
        return schema

    def _enum(self, key: str, value: Any, path: str, out: dict[str, Any], notes: list[str]) -> bool:
        values = value if key == "enum" and isinstance(value, list) else [value]
        kept = [item for item in values if item is not None]
        if kept and all(isinstance(item, str) for item in kept):
            out["enum"] = kept
            if key == "const":
                self.report.add(path, key, "changed", "became a one-value enum")
        elif kept:
            shown = ", ".join(json.dumps(item, ensure_ascii=False) for item in kept[:20])
            notes.append(f"one of: {shown}")
            self.report.add(path, key, "changed", "Gemini enums hold strings: listed in the text")
        return len(kept) < len(values)

    def _format(
        self, value: Any, kind: Any, path: str, out: dict[str, Any], notes: list[str]
    ) -> None:
        if isinstance(kind, str) and value in GEMINI_FORMATS.get(kind, ()):
            out["format"] = value
            return
        notes.append(f"format: {value}")
        self.report.add(path, "format", "dropped", "Gemini does not take this format: noted")

    def _exclusive(self, key: str, value: Any, kind: Any, path: str, out: dict[str, Any]) -> None:
        if kind == "integer" and isinstance(value, int) and not isinstance(value, bool):
            bound = "minimum" if key == "exclusiveMinimum" else "maximum"
            out[bound] = value + 1 if bound == "minimum" else value - 1
            self.report.add(path, key, "changed", f"became {bound}: same integers, no exclusive")
        else:
            self.report.add(path, key, "dropped", "Gemini has no exclusive bounds")

    def _flag(self, out: dict[str, Any], path: str) -> None:
        if "type" not in out and "anyOf" not in out:
            self.report.add(path, "type", "flagged", "Gemini needs a type for every value")
        elif out.get("type") == "object" and not out.get("properties") and path:
            self.report.add(
                path, "properties", "flagged", "Gemini cannot describe a free-form object"
            )
