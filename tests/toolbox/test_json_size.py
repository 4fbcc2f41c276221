"""`_core.json_size` (the byte cap's measure): exactly `len(json.dumps(value))`, or `None`
where only `json.dumps` can judge."""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel import _core

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=st.characters(codec=None)),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F)),
    st.text(alphabet=st.characters(exclude_categories=())),
)
keys = st.one_of(
    st.text(alphabet=st.characters(codec=None)),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(keys, inner, max_size=6),
    ),
    max_leaves=40,
)


@given(values)
def test_the_size_is_what_json_dumps_writes(value: Any) -> None:
    assert _core.json_size(value) == len(json.dumps(value))


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_float_measures_as_its_repr(number: float) -> None:
    assert _core.json_size(number) == len(repr(number))


@given(
    st.integers(min_value=-(10**17), max_value=10**17),
    st.integers(min_value=-30, max_value=30),
)
def test_short_decimals_measure_as_their_repr(digits: int, exponent: int) -> None:
    # Prices and measures: a decimal of up to 17 digits at any scale, read as a user's data is
    # (the measure has a shortcut for those of up to 15 digits).
    number = float(f"{digits}e{exponent}")
    assert _core.json_size(number) == len(repr(number))
    assert _core.json_size([number, -number]) == len(json.dumps([number, -number]))


@pytest.mark.parametrize(
    "number",
    [
        *(0.0, -0.0, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308),
        *(999999999999999.0, 99999999999999.98, 0.1 + 0.2, 19.99, 1e-8, 1.5e-9, 1e-22, 0.001),
    ],
)
def test_float_boundaries(number: float) -> None:
    assert _core.json_size(number) == len(repr(number))
    assert _core.json_size(math.inf) == len("Infinity")


class Text(str):
    pass


def test_what_only_json_dumps_can_judge_is_none() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    deep: list[Any] = []
    for _ in range(600):
        deep = [deep]
    for value in (
        cyclic,
        {"a": cyclic},
        deep,
        2**64,
        Text("x"),
        OrderedDict(a=1),
        {object(): 1},
        {"a": {1, 2}},
        b"bytes",
    ):
        assert _core.json_size(value) is None
    shared = [1, 2]
    assert _core.json_size([shared, shared]) == len(json.dumps([shared, shared]))
    nested: list[Any] = []
    for _ in range(500):
        nested = [nested]
    assert _core.json_size(nested) == len(json.dumps(nested))


@pytest.mark.parametrize(
    "text",
    ["", "\ud800", "a\udfffb", "\U0001f600", "é€", '"\\\n\r\t\b\f\x00\x1f\x7f', "x" * 10_000],
)
def test_strings_escape_as_json_dumps_escapes_them(text: str) -> None:
    assert _core.json_size(text) == len(json.dumps(text))
    assert _core.json_size({text: [text]}) == len(json.dumps({text: [text]}))
