"""`JsonSizer`: the length of `json.dumps(value)` without writing it, given up past a budget,
with shared parts measured once but counted every time JSON writes them."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import to_jsonable_python

from orkestrel.tool.json_sizer import JsonSizer

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(
            st.text(max_size=6) | st.integers() | st.booleans() | st.none(), children, max_size=4
        )
    ),
    max_leaves=25,
)


@given(JSON)
def test_the_size_is_what_json_dumps_writes(value: Any) -> None:
    size = len(json.dumps(value))
    assert JsonSizer().measure(value, size) == size
    assert JsonSizer().measure(value, size - 1) is None


def test_a_shared_part_counts_every_time_it_is_written() -> None:
    row = {"text": "é" * 10, "n": 1}
    answer = {"rows": [row, row, [row]], "again": row}
    sizer = JsonSizer()
    assert sizer.measure(answer, 10**6) == len(json.dumps(answer))
    assert sizer.measure(row, 10**6) == len(json.dumps(row))


def test_an_answer_of_a_terabyte_of_json_is_refused_at_once() -> None:
    value: Any = "x" * 1000
    for _ in range(30):
        value = [value, value]
    started = time.perf_counter()
    assert JsonSizer().measure(value, 1 << 20) is None
    assert JsonSizer().measure(value, 1 << 50) == 2**30 * 1002 + (2**30 - 1) * 4
    assert time.perf_counter() - started < 1


def test_a_cycle_raises_as_json_dumps_does() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        JsonSizer().measure({"a": loop}, 100)


@dataclass
class Point:
    x: int
    y: int


def test_values_json_cannot_write_are_measured_as_converted() -> None:
    value = {"when": date(2020, 1, 2), "at": Point(1, 2)}
    convert = JsonSizer(lambda item: to_jsonable_python(item))
    assert convert.measure(value, 1000) == len(json.dumps(to_jsonable_python(value)))
    with pytest.raises(TypeError):
        JsonSizer().measure(value, 1000)
