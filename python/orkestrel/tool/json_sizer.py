"""`JsonSizer`: the length of a value's JSON, as `json.dumps` writes it by default, measured
without writing it and given up on as soon as it passes a budget.

An answer built from shared rows (one row named by many keys, one account under every contact)
is small in memory but can be huge as JSON, where every reference is written out again. The
sizer remembers the size of every container it has measured, so a shared subtree costs one walk
however many times it appears, and measuring never allocates more than the value already holds.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from orkestrel import _core

_SEPARATOR: Final = 2
"""`', '` between items and `': '` between a key and its value."""
_BRACKETS: Final = 2


class _Over(Exception):
    """Raised inside a measure once the running size passes the budget."""


class JsonSizer:
    """Measures values against budgets; one sizer may measure several parts of one answer, each
    container's size being remembered across them while the measured values are alive.

    `convert`, when given, turns a value JSON cannot write (a model, a date) into one it can,
    as the caller will before writing; without it such a value is measured as `json.dumps`
    sees it, which raises `TypeError`. A cycle raises `ValueError`, as `json.dumps` does.
    """

    __slots__ = ("_active", "_convert", "_keep", "_sizes")

    def __init__(self, convert: Callable[[Any], Any] | None = None) -> None:
        self._convert = convert
        # Each measured container is held with its size, so that its id stays its own.
        self._sizes: dict[int, tuple[Any, int]] = {}
        self._active: set[int] = set()
        self._keep: list[Any] = []

    def measure(self, value: Any, budget: int) -> int | None:
        """The JSON length of `value`, or `None` once it is known to exceed `budget`."""
        try:
            size = self._size(value, budget)
        except _Over:
            self._active.clear()
            return None
        return size if size <= budget else None

    def _size(self, value: Any, budget: int) -> int:
        if isinstance(value, dict | list | tuple):
            known = self._sizes.get(id(value))
            if known is not None:
                if known[1] > budget:
                    raise _Over
                return known[1]
            if id(value) in self._active:
                raise ValueError("Circular reference detected")
            flat = _flat_size(value)
            if flat is None:
                self._active.add(id(value))
                size = self._container(value, budget)
                self._active.discard(id(value))
            else:
                size = flat
            self._sizes[id(value)] = (value, size)
            if size > budget:
                raise _Over
            return size
        leaf = _core.json_size(value) if type(value) in _LEAVES else None
        size = self._other(value, budget) if leaf is None else leaf
        if size > budget:
            raise _Over
        return size

    def _container(self, value: dict[Any, Any] | list[Any] | tuple[Any, ...], budget: int) -> int:
        size = _BRACKETS
        if isinstance(value, dict):
            for key, item in value.items():
                size += _key_size(key) + _SEPARATOR + (_SEPARATOR if size > _BRACKETS else 0)
                if size > budget:
                    raise _Over
                size += self._size(item, budget - size)
        else:
            for item in value:
                size += _SEPARATOR if size > _BRACKETS else 0
                size += self._size(item, budget - size)
        return size

    def _other(self, value: Any, budget: int) -> int:
        if self._convert is None or type(value) in _LEAVES:
            return len(json.dumps(value))
        converted = self._convert(value)
        if converted is value or type(converted) is type(value):
            return len(json.dumps(converted))
        self._keep.append(converted)
        return self._size(converted, budget)


_LEAVES: Final = frozenset({str, int, float, bool, type(None)})


def _flat_size(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> int | None:
    """The size of a container of plain leaves only (a row), measured in Rust in one call; `None`
    for any other, which is walked (a shared part may hide in it)."""
    items = value.values() if type(value) is dict else value if type(value) is list else None
    if items is None or not all(type(item) in _LEAVES for item in items):
        return None
    return _core.json_size(value)


def _key_size(key: Any) -> int:
    if type(key) is str:
        size = _core.json_size(key)
        if size is not None:
            return size
    # json.dumps writes a number, boolean or null key as a quoted string; anything else raises.
    return len(json.dumps({key: 0})) - len("{: 0}")
