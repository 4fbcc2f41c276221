"""Reading a call's arguments in the form a provider's strict mode sends them.

OpenAI's strict mode makes every property required and cannot describe an object with free keys
or a value of any type, so `export(..., strict=True)` renders an optional property as nullable
and such a place as JSON text. `ToolManager.execute` undoes both against the tool's own schema
before the handler runs:

- `null` for an optional property whose schema does not accept `null` means the property is
  absent (a strict-mode model cannot leave it out);
- so does `""` for an optional property whose schema is a string of at least one character,
  or an object or an array (sent as JSON text): strict mode cannot list `minLength`, and a
  model fills an unused text property with `""`;
- a string where the schema wants an object or an array and accepts no string is read as JSON
  text, when it parses to an object or an array.

Either rule acts only on a value the tool's own schema refuses, so a call that already fits is
never changed, and nothing is lost when the rules do not apply: the value goes to the handler as
it came and the handler reports it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from orkestrel.tool.schemas import reference, schema_kinds

ARGUMENTS_DEPTH_LIMIT: Final = 64
"""Below this many levels of nesting, arguments are passed on as they are."""

ARGUMENTS_PLACE_LIMIT: Final = 10_000
"""A schema with more places than this is not read at all: its calls are passed on as they are."""


class ArgumentsPlan:
    """What to undo at one place of a tool's parameters (a value, with the places inside it)."""

    __slots__ = ("absent", "active", "blank", "extra", "items", "properties", "text")

    def __init__(self) -> None:
        self.text = False
        self.absent: frozenset[str] = frozenset()
        self.blank: frozenset[str] = frozenset()
        self.properties: dict[str, ArgumentsPlan] = {}
        self.extra: ArgumentsPlan | None = None
        self.items: ArgumentsPlan | None = None
        self.active = False

    def children(self) -> list[ArgumentsPlan]:
        found = list(self.properties.values())
        found += [plan for plan in (self.extra, self.items) if plan is not None]
        return found


def arguments_plan(parameters: Any) -> ArgumentsPlan | None:
    """Reads a parameter schema into the plan `read_arguments` follows; `None` when no call can
    need anything undone (or the schema is too large or malformed to read)."""
    if not isinstance(parameters, Mapping):
        return None
    try:
        builder = _Builder(parameters)
        plan = builder.place([parameters], 0)
    except (_TooLarge, RecursionError, TypeError, ValueError):
        return None
    _settle(builder.plans)
    return plan if plan.active else None


def read_arguments(plan: ArgumentsPlan | None, value: Any) -> Any:
    """Returns `value` with the strict-mode forms undone; the same object when nothing changed."""
    if plan is None:
        return value
    return _read(plan, value, 0)


class _TooLarge(Exception):
    pass


class _Builder:
    __slots__ = ("memo", "plans", "root")

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.memo: dict[tuple[int, ...], ArgumentsPlan] = {}
        self.plans: list[ArgumentsPlan] = []

    def place(self, schemas: list[Any], depth: int) -> ArgumentsPlan:
        if depth > ARGUMENTS_DEPTH_LIMIT:
            return ArgumentsPlan()
        alternatives = self._alternatives(schemas)
        key = tuple(sorted(id(item) for item in alternatives))
        known = self.memo.get(key)
        if known is not None:
            return known
        if len(self.plans) >= ARGUMENTS_PLACE_LIMIT:
            raise _TooLarge
        plan = ArgumentsPlan()
        self.memo[key] = plan
        self.plans.append(plan)
        kinds: frozenset[str] = frozenset()
        for item in alternatives:
            kinds |= schema_kinds(item, self.root)
        plan.text = "string" not in kinds and bool(kinds & {"object", "array"})
        properties: dict[str, list[Any]] = {}
        optional: set[str] = set()
        extra: list[Any] = []
        items: list[Any] = []
        for item in alternatives:
            declared = item.get("properties")
            if isinstance(declared, Mapping):
                required = item.get("required")
                listed = required if isinstance(required, list) else []
                for name, child in declared.items():
                    properties.setdefault(name, []).append(child)
                    if name not in listed:
                        optional.add(name)
            if isinstance(item.get("additionalProperties"), Mapping):
                extra.append(item["additionalProperties"])
            if isinstance(item.get("items"), Mapping):
                items.append(item["items"])
        plan.properties = {name: self.place(found, depth + 1) for name, found in properties.items()}
        plan.absent = frozenset(
            name
            for name in optional
            if not any("null" in schema_kinds(s, self.root) for s in properties[name])
        )
        plan.blank = frozenset(
            name
            for name in optional
            if plan.properties[name].text or all(_needs_text(s) for s in properties[name])
        )
        plan.extra = self.place(extra, depth + 1) if extra else None
        plan.items = self.place(items, depth + 1) if items else None
        return plan

    def _alternatives(self, schemas: list[Any]) -> list[Mapping[str, Any]]:
        """The schemas a value at this place may match, `$ref`s followed and unions opened."""
        found: list[Mapping[str, Any]] = []
        stack = [(schema, 0) for schema in reversed(schemas)]
        while stack:
            schema, hops = stack.pop()
            if not isinstance(schema, Mapping) or hops > 32:
                continue
            found.append(schema)
            if "$ref" in schema:
                target = reference(self.root, schema["$ref"])
                if target is not None:
                    stack.append((target, hops + 1))
            for key in ("anyOf", "oneOf", "allOf"):
                arms = schema.get(key)
                if isinstance(arms, list):
                    stack.extend((arm, hops + 1) for arm in reversed(arms))
        return found


def _needs_text(schema: Any) -> bool:
    """Whether `schema` is a plain string schema that refuses `""` by its `minLength`."""
    if not isinstance(schema, Mapping) or schema.get("type") != "string":
        return False
    if any(key in schema for key in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const")):
        return False
    least = schema.get("minLength")
    return isinstance(least, int) and not isinstance(least, bool) and least >= 1


def _settle(plans: list[ArgumentsPlan]) -> None:
    for plan in plans:
        plan.active = plan.text or bool(plan.absent) or bool(plan.blank)
    changed = True
    while changed:
        changed = False
        for plan in plans:
            if not plan.active and any(child.active for child in plan.children()):
                plan.active = changed = True


def _read(plan: ArgumentsPlan, value: Any, depth: int) -> Any:
    if plan.text and isinstance(value, str):
        value = _parse(value)
    if depth >= ARGUMENTS_DEPTH_LIMIT:
        return value
    if type(value) is dict:
        return _read_object(plan, value, depth)
    if type(value) is list and plan.items is not None and plan.items.active:
        items = plan.items
        read = [_read(items, item, depth + 1) for item in value]
        return read if any(a is not b for a, b in zip(read, value, strict=True)) else value
    return value


def _read_object(plan: ArgumentsPlan, value: dict[str, Any], depth: int) -> Any:
    changed = False
    out: dict[str, Any] = {}
    for key, item in value.items():
        blank = type(item) is str and not item and key in plan.blank
        if blank or (item is None and key in plan.absent):
            changed = True
            continue
        child = plan.properties.get(key) if key in plan.properties else plan.extra
        read = item if child is None or not child.active else _read(child, item, depth + 1)
        changed = changed or read is not item
        out[key] = read
    return out if changed else value


def _parse(text: str) -> Any:
    try:
        parsed = json.loads(text, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return text
    return parsed if isinstance(parsed, dict | list) else text


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")
