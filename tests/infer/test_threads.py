"""Inference and `json_size` read lists and dicts that another thread keeps changing.

On every interpreter each call must see each container in one state: the result is the one
computed, alone, for a state the other thread passes through. With a GIL that holds because a
walk runs no Python code; on a free-threaded build the walk reads each list and dict inside its
critical section into references it holds (rust/py/src/hold.rs), so a change made meanwhile can
neither crash it nor show it half a change.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from orkestrel import _core
from orkestrel.contract import SchemaBuilder, samples_to_schema, value_to_schema
from support.threads import churning

json_size = _core.json_size

ROWS = 300


def rows() -> list[Any]:
    return [{"id": n, "name": f"row {n}", "tags": ["a", "b"]} for n in range(ROWS)]


EXTRA = {"id": "x", "name": None, "extra": [1.5]}


def observe(call: Callable[[], Any], expected: list[Any]) -> None:
    """Calls `call` at least 300 times, and on until two of the `expected` results were seen
    (10 s at most); every result must be one of them."""
    seen: list[Any] = []
    pauses = random.Random(5)
    deadline = time.monotonic() + 10
    while len(seen) < 300 or (len({repr(s) for s in seen}) < 2 and time.monotonic() < deadline):
        for _ in range(pauses.randrange(64)):
            pass
        seen.append(call())
    assert [result for result in seen if result not in expected] == []
    assert len({repr(s) for s in seen}) > 1, "the other thread never changed the input"


def toggle_list(items: list[Any]) -> Callable[[], None]:
    def step() -> None:
        if len(items) > ROWS:
            items.pop()
        else:
            items.append(EXTRA)

    return step


def toggle_key(record: dict[str, Any]) -> Callable[[], None]:
    def step() -> None:
        if "extra" in record:
            del record["extra"]
        else:
            record["extra"] = [1.5]

    return step


def both_states_of_list(call: Callable[[list[Any]], Any]) -> list[Any]:
    return [call(rows()), call([*rows(), EXTRA])]


def both_states_of_dict(call: Callable[[dict[str, Any]], Any], base: dict[str, Any]) -> list[Any]:
    return [call(dict(base)), call({**base, "extra": [1.5]})]


@pytest.mark.parametrize(
    "infer",
    [
        pytest.param(lambda v: samples_to_schema(v), id="samples_to_schema"),
        pytest.param(lambda v: value_to_schema(v), id="value_to_schema"),
        pytest.param(json_size, id="json_size"),
    ],
)
def test_a_list_changed_by_another_thread_is_read_in_one_state(
    infer: Callable[[Any], Any],
) -> None:
    expected = both_states_of_list(infer)
    assert expected[0] != expected[1]
    items = rows()
    with churning(toggle_list(items)):
        observe(lambda: infer(items), expected)


@pytest.mark.parametrize(
    "infer",
    [
        pytest.param(lambda v: samples_to_schema([v]), id="samples_to_schema"),
        pytest.param(lambda v: value_to_schema(v), id="value_to_schema"),
        pytest.param(json_size, id="json_size"),
    ],
)
def test_a_dict_changed_by_another_thread_is_read_in_one_state(
    infer: Callable[[Any], Any],
) -> None:
    base = {f"k{n}": n for n in range(ROWS)}
    expected = both_states_of_dict(infer, base)
    assert expected[0] != expected[1]
    record = dict(base)
    with churning(toggle_key(record)):
        observe(lambda: infer(record), expected)


def test_a_builder_fed_a_changing_list_sees_one_state_per_call() -> None:
    def built(items: list[Any]) -> Any:
        builder = SchemaBuilder()
        builder.add_many(items)
        return builder.to_schema()

    expected = both_states_of_list(built)
    items = rows()
    with churning(toggle_list(items)):
        observe(lambda: built(items), expected)
