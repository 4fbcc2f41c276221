"""Rendering, for OpenAI strict mode, the places of a schema that strict mode cannot describe.

Strict mode closes every object (`additionalProperties: false`) and wants a type for every
value, so it has no way to say "an object with free keys" (a `dict` parameter, a row of a
table) or "any value" (the items of a bare `list`). Closing such an object silently would turn
a `dict` parameter into one that only accepts `{}`. Instead the nearest place that accepts no
string becomes a string holding JSON text of the original value, described with the original
schema, and `ToolManager.execute` parses it back (`orkestrel.tool.arguments`). A place that does
accept strings (a property typed "any value") has no such rendering: `export` refuses it.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from orkestrel.tool.errors import ExportError
from orkestrel.tool.schemas import Report, pointer, reference, schema_kinds

TEXT_SCHEMA_LIMIT = 4000
"""The longest original schema, in characters of compact JSON, quoted in a JSON text place's
description; a longer one is cut there with `…`."""

_TYPED = ("type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const", "properties", "items")
_INLINE_HOPS = 3


class _Undescribable(Exception):
    """A place strict mode cannot describe that accepts strings, so no JSON text can stand in."""


def encode_free_places(schema: dict[str, Any], report: Report, *, quote: bool = True) -> None:
    """Replaces, in the copied root object `schema`, every place strict mode cannot describe by
    a JSON text string; raises `ExportError` for a property that takes any value. Without
    `quote`, the description names the kind of value only, not its original schema."""
    encoder = _Encoder(schema, report, quote)
    encoder.run()


class _Encoder:
    __slots__ = ("bad", "original", "quiet", "quote", "report", "root")

    def __init__(self, root: dict[str, Any], report: Report, quote: bool) -> None:
        self.root = root
        self.quote = quote
        self.original = copy.deepcopy(root)
        self.report = report
        self.bad: set[str] = set()
        self.quiet = False

    def run(self) -> None:
        defs = self._definitions(self.root)
        self.quiet = True
        while True:
            found = {ref for ref, node in defs.items() if self._undescribable(node, ref)}
            if found <= self.bad:
                break
            self.bad |= found
        self.quiet = False
        for ref, node in defs.items():
            if ref not in self.bad:
                self._node(node, ref[1:], False)
        properties = self.root.get("properties")
        if isinstance(properties, dict):
            for name, child in list(properties.items()):
                here = pointer("", "properties", name)
                try:
                    properties[name] = self._place(child, here)
                except _Undescribable:
                    raise ExportError(
                        f"tool {self.report.tool!r}: strict mode cannot describe {here}, which "
                        "takes any value; give it a type, or export without strict"
                    ) from None
        self._prune()

    def _undescribable(self, node: dict[str, Any], ref: str) -> bool:
        """Whether a trial encoding of a copy of one definition finds it undescribable."""
        try:
            self._node(copy.deepcopy(node), ref, False)
        except _Undescribable:
            return True
        return False

    def _definitions(self, root: dict[str, Any]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for key in ("$defs", "definitions"):
            defs = root.get(key)
            if isinstance(defs, dict):
                for name, node in defs.items():
                    if isinstance(node, dict):
                        found[pointer("#", key, name)] = node
        return found

    def _place(self, node: Any, path: str) -> Any:
        """Encodes the value at one place: a property, an array's items."""
        if not isinstance(node, dict):
            return node
        text = "string" not in schema_kinds(node, self.original)
        return self._node(node, path, text)

    def _node(self, node: dict[str, Any], path: str, text: bool) -> dict[str, Any]:
        """Encodes one schema node in place; `text` says its place accepts no string, so the
        node may become JSON text. Raises `_Undescribable` when it cannot."""
        try:
            if "$ref" in node and node["$ref"] in self.bad:
                raise _Undescribable
            if not any(key in node for key in _TYPED) or _is_free_object(node):
                raise _Undescribable
            properties = node.get("properties")
            if isinstance(properties, dict):
                for name, child in list(properties.items()):
                    properties[name] = self._place(child, pointer(path, "properties", name))
            kind = node.get("type")
            if kind == "array" or (isinstance(kind, list) and "array" in kind) or "items" in node:
                items = node.get("items")
                if not isinstance(items, dict) or not any(key in items for key in _TYPED):
                    raise _Undescribable
                node["items"] = self._place(items, pointer(path, "items"))
            for key in ("anyOf", "oneOf"):
                arms = node.get(key)
                if isinstance(arms, list):
                    node[key] = [
                        self._node(arm, pointer(path, key, index), text)
                        if isinstance(arm, dict)
                        else arm
                        for index, arm in enumerate(arms)
                    ]
        except _Undescribable:
            if not text:
                raise
            return self._text(node, path)
        return node

    def _text(self, node: dict[str, Any], path: str) -> dict[str, Any]:
        original = self._inline(node, 0)
        kinds = schema_kinds(node, self.original)
        what = "an object" if kinds <= {"object", "null"} else "a value"
        if kinds <= {"array", "null"}:
            what = "an array"
        shown = json.dumps(original, separators=(",", ":"), ensure_ascii=False)
        if len(shown) > TEXT_SCHEMA_LIMIT:
            shown = shown[: TEXT_SCHEMA_LIMIT - 1] + "…"
        note = f"Send JSON text: a string holding {what} of this JSON Schema: {shown}"
        if not self.quote:
            note = "JSON text."
        described = node.get("description")
        out: dict[str, Any] = {
            "type": ["string", "null"] if "null" in kinds else "string",
            "description": f"{described} {note}" if isinstance(described, str) else note,
        }
        node.clear()
        node.update(out)
        if self.quiet:
            return node
        self.report.add(
            path,
            "type",
            "changed",
            "strict mode cannot describe an object with free keys or a value of any type: "
            "it is sent as JSON text, which ToolManager.execute parses back",
        )
        return node

    def _inline(self, node: Any, hops: int) -> Any:
        """A copy of the original node with its references written out, a few levels deep."""
        if isinstance(node, list):
            return [self._inline(item, hops) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and hops < _INLINE_HOPS:
            target = reference(self.original, node["$ref"])
            if target is not None:
                rest = {key: value for key, value in node.items() if key != "$ref"}
                return self._inline({**target, **rest}, hops + 1)
        return {key: self._inline(value, hops) for key, value in node.items()}

    def _prune(self) -> None:
        """Drops the definitions nothing refers to any more."""
        used: set[str] = set()
        stack: list[Any] = [
            {key: value for key, value in self.root.items() if key not in ("$defs", "definitions")}
        ]
        defs = self._definitions(self.root)
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref in defs and ref not in used:
                    used.add(ref)
                    stack.append(defs[ref])
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        for ref in defs:
            if ref not in used:
                key, name = ref.split("/", 2)[1:]
                name = name.replace("~1", "/").replace("~0", "~")
                del self.root[key][name]
                self.report.add(ref[1:], key, "dropped", "nothing refers to it any more")
        for key in ("$defs", "definitions"):
            if self.root.get(key) == {}:
                del self.root[key]


def _is_free_object(node: dict[str, Any]) -> bool:
    """Whether a node is an object with free keys: no declared property, and extra keys allowed
    outright (`additionalProperties` true or a schema) or by silence with no `properties` at all.

    An object that declares `properties`, even none, without a word on extra keys is closed as
    strict mode asks: that is how pydantic renders a model, which ignores extra keys anyway.
    """
    if any(key in node for key in ("anyOf", "oneOf", "$ref")) or node.get("properties"):
        return False
    kind = node.get("type")
    objects = kind == "object" or (isinstance(kind, list) and "object" in kind)
    extra = node.get("additionalProperties")
    if kind is None:
        objects = extra is not None or "patternProperties" in node
    if not objects or extra is False:
        return False
    return extra is not None or "patternProperties" in node or "properties" not in node
