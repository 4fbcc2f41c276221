"""JSON Schema plumbing shared by the provider renderers: safe copies, references, the report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from orkestrel.tool.errors import ExportError
from orkestrel.tool.flatten import flatten_parameters

EXPORT_DEPTH_LIMIT = 128
"""Deepest nesting of objects and arrays accepted in one tool's parameter schema."""

EXPORT_NODE_LIMIT = 100_000
"""Most objects and arrays one tool's parameter schema may hold, before or after inlining."""

ROOT_REFUSED = ("anyOf", "oneOf", "allOf", "not", "enum")
"""The keywords providers refuse at the top of a tool's parameters (Anthropic refuses the
compositions, OpenAI a root union even outside strict mode)."""

ExportAction = Literal["dropped", "changed", "added", "flagged"]
"""Says what rendering did at one place: dropped a keyword, changed it, added one the provider
requires, or flagged something kept that the provider is documented to refuse or ignore."""


class ExportChange(TypedDict):
    """Records one difference between a definition and what a provider receives."""

    tool: str
    path: str
    """A JSON Pointer into the tool's parameter schema; `""` is the schema itself."""
    keyword: str
    action: ExportAction
    reason: str


class Report:
    """Collects the changes made while rendering one tool."""

    __slots__ = ("changes", "tool")

    def __init__(self, tool: str, changes: list[ExportChange]) -> None:
        self.tool = tool
        self.changes = changes

    def add(self, path: str, keyword: str, action: ExportAction, reason: str) -> None:
        """Records one change at `path`."""
        self.changes.append(
            {
                "tool": self.tool,
                "path": path,
                "keyword": keyword,
                "action": action,
                "reason": reason,
            }
        )


def pointer(path: str, *steps: str | int) -> str:
    """Extends a JSON Pointer by `steps`, escaping `~` and `/` in keys."""
    for step in steps:
        path += "/" + str(step).replace("~", "~0").replace("/", "~1")
    return path


def copy_schema(value: Any, tool: str) -> dict[str, Any]:
    """Copies a parameter schema into fresh dicts and lists, refusing what JSON cannot carry.

    Raises `ExportError` for non-string keys, values that are not JSON data, nesting deeper
    than `EXPORT_DEPTH_LIMIT` (which includes a dict that contains itself) or more than
    `EXPORT_NODE_LIMIT` containers.
    """
    if not isinstance(value, Mapping):
        raise ExportError(f"tool {tool!r}: parameters must be a JSON Schema object")
    budget = [EXPORT_NODE_LIMIT]
    copied = _copy(value, tool, "", 0, budget)
    assert isinstance(copied, dict)
    return copied


def _copy(value: Any, tool: str, path: str, depth: int, budget: list[int]) -> Any:
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if depth >= EXPORT_DEPTH_LIMIT:
        raise ExportError(
            f"tool {tool!r}: parameters nest deeper than {EXPORT_DEPTH_LIMIT} levels at "
            f"{path or '/'} (or contain themselves)"
        )
    budget[0] -= 1
    if budget[0] < 0:
        raise ExportError(f"tool {tool!r}: parameters hold more than {EXPORT_NODE_LIMIT} nodes")
    if isinstance(value, Mapping):
        result: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ExportError(f"tool {tool!r}: key {key!r} at {path or '/'} is not a string")
            result[key] = _copy(item, tool, pointer(path, key), depth + 1, budget)
        return result
    if isinstance(value, list | tuple):
        return [
            _copy(item, tool, pointer(path, i), depth + 1, budget) for i, item in enumerate(value)
        ]
    raise ExportError(f"tool {tool!r}: {type(value).__name__} at {path or '/'} is not JSON data")


def resolve(root: Mapping[str, Any], ref: Any, tool: str) -> dict[str, Any]:
    """Finds the schema a local `$ref` (`#/$defs/Name`) points at inside `root`."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise ExportError(f"tool {tool!r}: only local references can be resolved, not {ref!r}")
    node: Any = root
    for raw in ref[1:].split("/")[1:]:
        step = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            raise ExportError(f"tool {tool!r}: reference {ref!r} points at nothing")
    if not isinstance(node, dict):
        raise ExportError(f"tool {tool!r}: reference {ref!r} does not point at a schema")
    return node


def admits_null(schema: Any) -> bool:
    """Tells whether a schema accepts `null`: an empty schema, `type` null, or a null arm."""
    if not isinstance(schema, Mapping) or not schema or schema.get("type") == "null":
        return True
    kinds = schema.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        return True
    if schema.get("nullable") is True:
        return True
    arms = schema.get("anyOf") or schema.get("oneOf") or []
    return isinstance(arms, list) and any(admits_null(arm) for arm in arms)


def object_root(schema: dict[str, Any], report: Report) -> dict[str, Any]:
    """Makes the root one object schema: inlines a root `$ref`, flattens a root union of object
    schemas into one object (`flatten_parameters`), adds a missing `type`.

    Raises `ExportError` when the root describes something other than an object, which no
    provider accepts as a tool's arguments, or keeps a keyword providers refuse at the top
    (`anyOf`, `oneOf`, `allOf`, `not`, `enum`).
    """
    for _ in range(EXPORT_DEPTH_LIMIT):
        if "$ref" not in schema:
            break
        rest = {key: value for key, value in schema.items() if key != "$ref"}
        schema = {**resolve(schema, schema["$ref"], report.tool), **rest}
        report.add("", "$ref", "changed", "the root reference is inlined: tools need an object")
    unions = [key for key in ("anyOf", "oneOf") if key in schema]
    if unions:
        flat = flatten_parameters(schema)
        if not any(key in flat for key in ("anyOf", "oneOf")):
            schema = flat
            report.add(
                "", unions[0], "changed", "one object now: providers refuse a union at the root"
            )
    kind = schema.get("type")
    if kind is None and not any(key in schema for key in ("anyOf", "oneOf", "allOf", "$ref")):
        schema = {"type": "object", **schema}
        report.add("", "type", "added", "tool parameters are an object")
    elif kind != "object":
        raise ExportError(
            f"tool {report.tool!r}: parameters must describe an object, not {kind or 'a union'!r}"
        )
    refused = [key for key in ROOT_REFUSED if key in schema]
    if refused:
        raise ExportError(
            f"tool {report.tool!r}: parameters must be one object at the root; "
            f"providers refuse {refused[0]} there"
        )
    return schema


JSON_KINDS = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
"""Every JSON Schema type name: the kinds a schema that says nothing admits."""

_REF_HOPS = 32
_KIND_OF = {bool: "boolean", str: "string", int: "integer", float: "number", type(None): "null"}


def reference(root: Mapping[str, Any], ref: Any) -> Mapping[str, Any] | None:
    """Finds the schema a local `$ref` points at, or `None` when it points at nothing."""
    try:
        return resolve(root, ref, "")
    except ExportError:
        return None


def schema_kinds(schema: Any, root: Mapping[str, Any], hops: int = 0) -> frozenset[str]:
    """The JSON types a schema admits at its top level, following `$ref`, `anyOf`, `oneOf` and
    `allOf`; a schema without `type` that lists `properties` admits objects, one with `items`
    arrays, and one that says nothing admits every type."""
    if schema is False:
        return frozenset()
    if not isinstance(schema, Mapping) or hops > _REF_HOPS:
        return JSON_KINDS
    kinds = _own_kinds(schema)
    if "$ref" in schema:
        target = reference(root, schema["$ref"])
        kinds &= JSON_KINDS if target is None else schema_kinds(target, root, hops + 1)
    for key in ("anyOf", "oneOf"):
        arms = schema.get(key)
        if isinstance(arms, list) and arms:
            union: frozenset[str] = frozenset()
            for arm in arms:
                union |= schema_kinds(arm, root, hops + 1)
            kinds &= union
    arms = schema.get("allOf")
    if isinstance(arms, list):
        for arm in arms:
            kinds &= schema_kinds(arm, root, hops + 1)
    if schema.get("nullable") is True:
        kinds |= {"null"}
    return kinds


def _own_kinds(schema: Mapping[str, Any]) -> frozenset[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset({kind}) | ({"integer"} if kind == "number" else set())
    if isinstance(kind, list):
        named = {item for item in kind if isinstance(item, str)}
        return frozenset(named) | ({"integer"} if "number" in named else set())
    values = schema["enum"] if isinstance(schema.get("enum"), list) else None
    if values is None and "const" in schema:
        values = [schema["const"]]
    if values is not None:
        return frozenset(_KIND_OF.get(type(value), _container(value)) for value in values)
    if any(key in schema for key in ("properties", "additionalProperties", "required")):
        return frozenset({"object"})
    if any(key in schema for key in ("items", "prefixItems")):
        return frozenset({"array"})
    return JSON_KINDS


def _container(value: Any) -> str:
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return _KIND_OF.get(type(value), "string" if isinstance(value, str) else "number")
