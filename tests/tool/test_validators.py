"""`is_tool_call`: the envelope guard is total for malformed and hostile input."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.tool import is_tool_call


def test_accepts_a_call_and_leaves_caller_opaque() -> None:
    assert is_tool_call({"id": "1", "name": "add", "arguments": {}})
    assert is_tool_call({"id": "", "name": "", "arguments": {"x": 1}, "caller": object()})


@pytest.mark.parametrize(
    "value",
    [
        None,
        "call",
        42,
        [],
        (),
        {"id": "1", "name": "x"},
        {"id": 1, "name": "x", "arguments": {}},
        {"id": "1", "name": None, "arguments": {}},
        {"name": "x", "arguments": {}},
    ],
)
def test_rejects_non_records_and_incomplete_calls(value: Any) -> None:
    assert not is_tool_call(value)


@pytest.mark.parametrize("arguments", [None, "str", 42, True, ["query"], ("a",)])
def test_rejects_non_record_arguments(arguments: Any) -> None:
    assert not is_tool_call({"id": "1", "name": "x", "arguments": arguments})


class Hostile(dict[str, Any]):
    def __init__(self, broken: str) -> None:
        super().__init__(id="1", name="x", arguments={}, caller=None)
        self.broken = broken

    def __getitem__(self, key: str) -> Any:
        if key == self.broken:
            raise RuntimeError("trap")
        return super().__getitem__(key)


@pytest.mark.parametrize("field", ["id", "name", "arguments"])
def test_throwing_reads_are_false(field: str) -> None:
    assert not is_tool_call(Hostile(field))


def test_caller_is_never_read() -> None:
    assert is_tool_call(Hostile("caller"))


def test_hostile_str_subclass_ids_still_pass_the_structural_check() -> None:
    class Weird(str):
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no comparing")

        __hash__ = str.__hash__

    assert is_tool_call({"id": Weird("1"), "name": "x", "arguments": {}})


def test_is_tool_call_refuses_arguments_with_non_string_keys() -> None:
    assert not is_tool_call({"id": "1", "name": "add", "arguments": {1: "x"}})
    assert not is_tool_call({"id": "1", "name": "add", "arguments": {"a": 1, (2,): 2}})
    assert is_tool_call({"id": "1", "name": "add", "arguments": {"a": 1}})
