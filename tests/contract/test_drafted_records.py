"""`parse` builds a plain dict's output as a copy of it, patched where a value changes, while
its keys come in the order the output keeps (a draft); any other dict, here one whose table
has deleted entries and non-str keys once stored, is built from its parsed entries. Both must
give the same output, keys in the same order, for records whose keys come in order, out of
order, missing, undeclared, or array indices (which JavaScript order puts first)."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from orkestrel.contract import (
    ParseError,
    boolean_shape,
    create_contract,
    integer_shape,
    json_shape,
    number_shape,
    object_shape,
    optional_shape,
    string_shape,
)

LEAVES: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (string_shape(), st.text(max_size=2) | st.integers(0, 9)),
    (integer_shape(), st.integers(-3, 3) | st.sampled_from(["1", " 2", "x", 2.0])),
    (number_shape(), st.floats(-2, 2) | st.sampled_from(["4.5", "", True])),
    (boolean_shape(), st.booleans() | st.sampled_from(["true", "0", 1])),
    (json_shape(), st.none() | st.lists(st.integers(0, 3), max_size=2) | st.text(max_size=2)),
]
NAMES = st.lists(st.sampled_from(["a", "b", "c", "0", "7"]), unique=True, max_size=4)
EXTRA_NAMES = st.lists(st.sampled_from(["x", "y", "3", "12"]), unique=True, max_size=2)
TAILS = st.sampled_from(["closed", "open", "string"])


@st.composite
def cases(draw: st.DrawFn, depth: int = 0) -> tuple[Any, Any]:
    """A shape and a value that often, but not always, satisfies it."""
    if depth >= 2 or draw(st.booleans()):
        shape, values = draw(st.sampled_from(LEAVES))
        return shape, draw(values)
    props: dict[str, Any] = {}
    value: dict[str, Any] = {}
    for name in draw(NAMES):
        shape, item = draw(cases(depth + 1))
        optional = draw(st.booleans())
        props[name] = optional_shape(shape) if optional else shape
        if draw(st.integers(0, 5)) > 0:
            value[name] = item
    tail = draw(TAILS)
    for name in draw(EXTRA_NAMES):
        value[name] = draw(st.text(max_size=2) | st.integers(0, 3) | st.lists(st.none()))
    if draw(st.booleans()):
        value = {key: value[key] for key in draw(st.permutations(list(value)))}
    additional = {"closed": None, "open": True, "string": string_shape()}[tail]
    return object_shape(props, additional_properties=additional), value


def _holed(value: Any) -> Any:
    """`value` with every dict rebuilt in a table with deleted entries and of the general kind."""
    if isinstance(value, list):
        return [_holed(item) for item in value]
    if not isinstance(value, dict):
        return value
    holed: dict[Any, Any] = {}
    for n, (key, item) in enumerate(value.items()):
        holed[("gone", n)] = None
        holed[key] = _holed(item)
    for n in range(len(value)):
        del holed[("gone", n)]
    return holed


def _exact(value: Any) -> Any:
    """`value` with its dicts' key order and its scalars' types made part of equality."""
    if isinstance(value, dict):
        return ("dict", [(key, _exact(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_exact(item) for item in value])
    return (type(value).__name__, value)


def _parsed(contract: Any, value: Any) -> Any:
    try:
        return _exact(contract.parse(value))
    except ParseError as error:
        return ("error", str(error))


@settings(max_examples=400)
@given(cases())
@example((object_shape({"a": string_shape()}, additional_properties=True), {"x": 1, "a": "q"}))
@example((object_shape({"a": integer_shape(), "0": json_shape()}), {"a": "1", "0": [1]}))
def test_drafted_records_parse_as_built_ones(case: tuple[Any, Any]) -> None:
    shape, value = case
    contract = create_contract(shape)
    assert _parsed(contract, value) == _parsed(contract, _holed(value))
