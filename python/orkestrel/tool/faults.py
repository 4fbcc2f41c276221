"""Turning a pydantic `ValidationError` into short fault lines a model can act on.

Built from each error's `type`, `loc`, `ctx` and `input`, never from pydantic's rendered text, so
no URL, `input_value=` or version-dependent wording reaches the model.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from orkestrel.contract.helpers import number_to_string, preview
from orkestrel.tool.errors import ArgumentFault, ArgumentsError

ARGUMENT_FAULT_LIMIT = 20
"""At most this many fault lines are listed; the rest are counted on one closing line."""

PATH_STEP_LIMIT = 12
"""A longer path shows its first and last six steps around `…`."""

_KINDS: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "int_parsing_size": "an integer of a usable size",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "decimal_type": "a number",
    "decimal_parsing": "a number",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "string_type": "a string",
    "string_unicode": "a string",
    "bytes_type": "a string",
    "list_type": "an array",
    "tuple_type": "an array",
    "set_type": "an array",
    "frozen_set_type": "an array",
    "iterable_type": "an array",
    "dict_type": "an object",
    "mapping_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "dataclass_type": "an object",
    "typed_dict_type": "an object",
    "none_required": "null",
    "missing": "a value (required)",
    "recursion_loop": "data nested less deeply, without cycles",
    "recursion_depth_exceeded": "data nested less deeply, without cycles",
}
_BOUNDS: dict[str, str] = {
    "greater_than": "a number greater than {gt}",
    "greater_than_equal": "a number of at least {ge}",
    "less_than": "a number less than {lt}",
    "less_than_equal": "a number of at most {le}",
    "multiple_of": "a multiple of {multiple_of}",
    "string_too_short": "a string of at least {min_length} characters",
    "string_too_long": "a string of at most {max_length} characters",
    "string_pattern_mismatch": "a string matching {pattern}",
    "too_short": "at least {min_length} items",
    "too_long": "at most {max_length} items",
    "literal_error": "one of {expected}",
    "enum": "one of {expected}",
}
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def arguments_error(
    tool: str, error: ValidationError, args: Any, names: Sequence[str] = ()
) -> ArgumentsError:
    """Builds the `ArgumentsError` for a failed validation of `args`.

    `names` are the tool's parameter names, offered when the model sent a key that is not one
    of them. Faults at the same place (the arms of a union) merge into one line.
    """
    merged: dict[tuple[Any, ...], ArgumentFault] = {}
    for item in error.errors(include_url=False, include_context=True, include_input=True):
        kind = str(item.get("type", ""))
        path = _real_path(args, tuple(item.get("loc", ())), kind)
        expected = _expected(kind, item, path, names).replace("\r", "\\r").replace("\n", "\\n")
        received = "nothing" if kind == "missing" else preview(item.get("input"))
        known = merged.get(path)
        if known is None:
            merged[path] = {"path": _path_text(path), "expected": expected, "received": received}
        elif expected not in known["expected"].split(" or "):
            known["expected"] = f"{known['expected']} or {expected}"
    faults = list(merged.values())
    lines = [f"{f['path']}: expected {f['expected']}, received {f['received']}" for f in faults]
    if len(lines) > ARGUMENT_FAULT_LIMIT:
        hidden = len(lines) - ARGUMENT_FAULT_LIMIT
        lines = [*lines[:ARGUMENT_FAULT_LIMIT], f"… and {hidden} more faults"]
    return ArgumentsError(tool, faults, lines)


def _real_path(args: Any, loc: tuple[Any, ...], kind: str) -> tuple[Any, ...]:
    """Keeps the steps of `loc` that exist in the input, dropping union arm tags."""
    node = args
    path: list[Any] = []
    for index, step in enumerate(loc):
        last = index == len(loc) - 1
        if isinstance(node, Mapping) and isinstance(step, str) and step in node:
            node = node[step]
        elif isinstance(node, list | tuple) and isinstance(step, int):
            node = node[step] if -len(node) <= step < len(node) else None
        elif not (last and kind == "missing"):
            continue
        path.append(step)
    return tuple(path)


def _path_text(path: tuple[Any, ...]) -> str:
    if len(path) > PATH_STEP_LIMIT:
        keep = PATH_STEP_LIMIT // 2
        head, tail = _path_text(path[:keep]), _path_text(path[-keep:])
        return f"{head}…{'' if tail.startswith('[') else '.'}{tail}"
    text = ""
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif _IDENTIFIER.fullmatch(str(step)):
            text += f".{step}" if text else str(step)
        else:
            text += f"[{preview(str(step))}]"
    return text or "arguments"


def _text(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number_to_string(value)
    return str(value)


def _expected(kind: str, item: Any, path: tuple[Any, ...], names: Sequence[str]) -> str:
    context = item.get("ctx") or {}
    if kind == "extra_forbidden":
        if not names or len(path) != 1:
            return "no such key"
        guess = difflib.get_close_matches(str(path[0]), list(names), n=1)
        hint = f" (did you mean {guess[0]}?)" if guess else ""
        return f"one of the parameters {', '.join(names)}{hint}"
    if kind in _KINDS:
        return _KINDS[kind]
    if kind in _BOUNDS:
        try:
            return _BOUNDS[kind].format(**{key: _text(value) for key, value in context.items()})
        except (KeyError, IndexError, ValueError):
            pass
    if kind in ("value_error", "assertion_error") and "error" in context:
        return f"a valid value ({_text(context['error'])})"
    message = str(item.get("msg", "a valid value"))
    if message.startswith("Input should be "):
        message = message[len("Input should be ") :]
    return message.split(", ", 1)[0] or "a valid value"
