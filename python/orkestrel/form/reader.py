"""Reads a form document exactly: every key known, every value of its type, within budget.

The reader builds a fresh copy in the wire order `serialize_form` promises, so parsing,
copying and projecting are one walk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from orkestrel.form.constants import (
    CHOICE_LIMIT,
    DEPTH_LIMIT,
    FIELD_CONTROLS,
    FIELD_LIMIT,
    FIELD_RULES,
    GROUP_LIMIT,
    LIST_LIMIT,
    NODE_LIMIT,
    STRING_LIMIT,
    TEXT_LIMIT,
)
from orkestrel.form.controls import is_number

Custom = Literal["keep", "drop"]

SCHEMA_KEYS = ("name", "label", "help", "groups", "fields")
GROUP_KEYS = ("name", "label", "help")
CHOICE_KEYS = ("value", "label", "help", "disabled")
BASE_KEYS = ("control", "name", "label", "help", "group", "hidden", "disabled", "locked", "meta")
RULE_KEYS: tuple[str, ...] = FIELD_RULES
CONTROL_KEYS: dict[str, tuple[str, ...]] = {
    "text": ("default", "placeholder"),
    "editor": ("default", "placeholder"),
    "password": ("mask",),
    "number": ("default", "placeholder"),
    "date": ("default",),
    "time": ("default",),
    "datetime": ("default",),
    "color": ("default",),
    "confirm": ("default",),
    "select": ("choices", "default", "open"),
    "checkbox": ("choices", "default"),
    "file": ("accept", "multiple"),
}
REQUIRED_KEYS: dict[str, tuple[str, ...]] = {"select": ("choices",), "checkbox": ("choices",)}


class Refused(Exception):
    """The one structural fault that stops a read."""


class Reader:
    """One read of one document, counting its nodes and string characters."""

    def __init__(self, custom: Custom) -> None:
        self.custom = custom
        self.nodes = 0
        self.chars = 0

    def schema(self, value: object) -> dict[str, Any]:
        record = self._record(value, "schema")
        self._known(record, SCHEMA_KEYS, "schema")
        out: dict[str, Any] = {}
        for key in ("name", "label", "help"):
            if key in record:
                out[key] = self._string(record[key], f"schema.{key}")
        if "groups" in record:
            groups = self._list(record["groups"], "schema.groups", GROUP_LIMIT, "groups")
            out["groups"] = [self._group(item, f"groups[{i}]") for i, item in enumerate(groups)]
        if "fields" not in record:
            raise Refused("schema: missing fields, the list of fields to ask")
        fields = self._list(record["fields"], "schema.fields", FIELD_LIMIT, "fields")
        out["fields"] = [self._field(item, f"fields[{i}]") for i, item in enumerate(fields)]
        return out

    def _group(self, value: object, where: str) -> dict[str, Any]:
        record = self._record(value, where)
        self._known(record, GROUP_KEYS, where)
        self._needs(record, ("name", "label"), where)
        return {
            key: self._string(record[key], f"{where}.{key}") for key in GROUP_KEYS if key in record
        }

    def _choice(self, value: object, where: str) -> dict[str, Any]:
        record = self._record(value, where)
        self._known(record, CHOICE_KEYS, where)
        self._needs(record, ("value", "label"), where)
        out: dict[str, Any] = {
            key: self._string(record[key], f"{where}.{key}")
            for key in CHOICE_KEYS[:3]
            if key in record
        }
        if "disabled" in record:
            out["disabled"] = self._bool(record["disabled"], f"{where}.disabled")
        return out

    def _field(self, value: object, where: str) -> dict[str, Any]:
        record = self._record(value, where)
        control = record.get("control")
        if type(control) is not str or control not in FIELD_CONTROLS:
            known = ", ".join(FIELD_CONTROLS)
            raise Refused(f"{where}.control: expected one of {known}, got {_show(control)}")
        own = CONTROL_KEYS[control]
        self._known(record, (*BASE_KEYS, *own, "rule"), where, f"a {control} field")
        self._needs(record, ("name", *REQUIRED_KEYS.get(control, ())), where)
        out: dict[str, Any] = {
            "control": control,
            "name": self._string(record["name"], f"{where}.name"),
        }
        for key in ("label", "help", "group"):
            if key in record:
                out[key] = self._string(record[key], f"{where}.{key}")
        for key in ("hidden", "disabled", "locked"):
            if key in record:
                out[key] = self._bool(record[key], f"{where}.{key}")
        if "meta" in record:
            out["meta"] = self._json_record(record["meta"], f"{where}.meta")
        for key in own:
            if key in record:
                out[key] = self._own(control, key, record[key], f"{where}.{key}")
        if "rule" in record:
            rule = self._rule(record["rule"], f"{where}.rule")
            if rule:
                out["rule"] = rule
        return out

    def _own(self, control: str, key: str, value: object, where: str) -> Any:
        if key == "choices":
            items = self._list(value, where, CHOICE_LIMIT, "choices")
            return [self._choice(item, f"{where}[{i}]") for i, item in enumerate(items)]
        if key in ("open", "multiple"):
            return self._bool(value, where)
        if key == "accept":
            return self._strings(value, where)
        if key != "default":
            return self._string(value, where)
        if control == "number":
            return self._number(value, where)
        if control == "confirm":
            return self._bool(value, where)
        if control == "checkbox":
            return self._strings(value, where)
        return self._string(value, where)

    def _rule(self, value: object, where: str) -> dict[str, Any]:
        record = self._record(value, where)
        self._known(record, (*RULE_KEYS, "custom"), where)
        out: dict[str, Any] = {}
        for key in RULE_KEYS:
            if key not in record:
                continue
            item, at = record[key], f"{where}.{key}"
            if key in ("minimum", "maximum"):
                out[key] = self._string(item, at) if type(item) is str else self._number(item, at)
            elif key == "step":
                out[key] = self._number(item, at)
            elif key == "pattern":
                out[key] = self._string(item, at)
            else:
                out[key] = self._bool(item, at)
        if "custom" in record and self.custom == "keep":
            check = record["custom"]
            if not callable(check):
                raise Refused(f"{where}.custom: expected a function, got {_show(check)}")
            out["custom"] = check
        return out

    def _record(self, value: object, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Refused(f"{where}: expected an object, got {_show(value)}")
        self._node()
        record: dict[str, Any] = {}
        for key, item in dict.items(value):
            if type(key) is not str:
                raise Refused(f"{where}: keys must be strings, got {_show(key)}")
            record[key] = item
        return record

    def _list(self, value: object, where: str, limit: int, what: str) -> list[Any]:
        if type(value) is not list:
            raise Refused(f"{where}: expected a list, got {_show(value)}")
        if len(value) > limit:
            raise Refused(f"{where}: at most {limit} {what}, got {len(value)}")
        self._node()
        return list(value)

    def _strings(self, value: object, where: str) -> list[str]:
        items = self._list(value, where, LIST_LIMIT, "entries")
        return [self._string(item, f"{where}[{i}]") for i, item in enumerate(items)]

    def _string(self, value: object, where: str) -> str:
        if type(value) is not str:
            raise Refused(f"{where}: expected a string, got {_show(value)}")
        self._text(value, where)
        return value

    def _bool(self, value: object, where: str) -> bool:
        if type(value) is not bool:
            raise Refused(f"{where}: expected true or false, got {_show(value)}")
        self._node()
        return value

    def _number(self, value: object, where: str) -> float:
        if not is_number(value) or type(value) not in (int, float):
            raise Refused(f"{where}: expected a finite number, got {_show(value)}")
        self._node()
        return value  # type: ignore[return-value]

    def _json_record(self, value: object, where: str) -> dict[str, Any]:
        root: dict[str, Any] = {}
        # Iterative, so a deeply nested meta record cannot exhaust the stack. Each container is
        # made with placeholders first, so its keys and items keep their order.
        stack: list[tuple[object, Callable[[Any], None], str, int]] = []
        for key, child in self._record(value, where).items():
            self._text(key, where)
            root[key] = None
            stack.append((child, _setter(root, key), f"{where}.{key}", 2))
        while stack:
            item, put, at, depth = stack.pop()
            if isinstance(item, dict | list) and depth > DEPTH_LIMIT:
                raise Refused(f"{where}: nested more than {DEPTH_LIMIT} levels deep")
            if isinstance(item, dict):
                made: dict[str, Any] = {}
                put(made)
                for key, child in self._record(item, at).items():
                    self._text(key, at)
                    made[key] = None
                    stack.append((child, _setter(made, key), f"{at}.{key}", depth + 1))
            elif type(item) is list:
                made_list: list[Any] = [None] * len(item)
                put(made_list)
                self._node()
                for index, child in enumerate(item):
                    stack.append((child, _placer(made_list, index), f"{at}[{index}]", depth + 1))
            elif item is None or type(item) is bool:
                self._node()
                put(item)
            elif type(item) in (int, float):
                put(self._number(item, at))
            elif type(item) is str:
                put(self._string(item, at))
            else:
                raise Refused(f"{at}: expected JSON, got {_show(item)}")
        return root

    def _node(self) -> None:
        self.nodes += 1
        if self.nodes > NODE_LIMIT:
            raise Refused(f"schema: more than {NODE_LIMIT} objects, lists and values in total")

    def _text(self, value: str, where: str) -> None:
        if len(value) > STRING_LIMIT:
            raise Refused(
                f"{where}: a string of at most {STRING_LIMIT} characters, got {len(value)}"
            )
        self.chars += len(value)
        if self.chars > TEXT_LIMIT:
            raise Refused(f"schema: more than {TEXT_LIMIT} string characters in total")
        self._node()

    def _known(
        self, record: dict[str, Any], keys: tuple[str, ...], where: str, what: str = ""
    ) -> None:
        stray = next((key for key in record if key not in keys), None)
        if stray is not None:
            suffix = f" of {what}" if what else ""
            raise Refused(
                f"{where}: unknown key {stray[:64]!r}{suffix}; expected {', '.join(keys)}"
            )

    def _needs(self, record: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
        missing = next((key for key in keys if key not in record), None)
        if missing is not None:
            raise Refused(f"{where}: missing {missing}")


def _setter(target: dict[str, Any], key: str) -> Callable[[Any], None]:
    return lambda made: target.__setitem__(key, made)


def _placer(target: list[Any], index: int) -> Callable[[Any], None]:
    return lambda made: target.__setitem__(index, made)


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value[:64] + ("…" if len(value) > 64 else ""))
    if isinstance(value, int | float):
        try:
            return repr(value)
        except ValueError:
            return "a number too long to show"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def read_schema(value: object, custom: Custom) -> dict[str, Any]:
    """Reads `value` as a form document and returns its fresh copy; raises `Refused`."""
    return Reader(custom).schema(value)
