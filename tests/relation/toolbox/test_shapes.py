"""`relation_tool_shape`: every arm's valid calls, the flat include list, and refusals."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.contract import ParseError, create_contract, object_shape
from orkestrel.toolbox import include_shape, manager_shape, relation_tool_shape

contract = create_contract(relation_tool_shape)

VALID: list[dict[str, Any]] = [
    {"operation": "load", "model": "accounts", "key": "acc1"},
    {"operation": "load", "model": "accounts", "key": ["acc1", 2], "include": ["contacts.account"]},
    {"operation": "load", "manager": "shop", "model": "accounts", "key": 7, "include": []},
    {"operation": "find", "model": "accounts"},
    {
        "operation": "find",
        "model": "accounts",
        "include": ["contacts"],
        "limit": 5,
        "offset": 0,
        "sort": "name",
        "direction": "descending",
    },
    {"operation": "link", "model": "a", "key": "k", "relation": "r", "target": 3},
    {"operation": "unlink", "model": "a", "key": 1, "relation": "r", "target": "t"},
    {"operation": "links", "model": "a", "key": "k", "relation": "r"},
]


@pytest.mark.parametrize("value", VALID)
def test_valid_calls_of_every_arm(value: dict[str, Any]) -> None:
    assert contract.is_valid(value)
    assert contract.parse(value) == value


def test_keys_are_single_or_listed_per_arm() -> None:
    assert contract.parse({"operation": "load", "model": "a", "key": ["x"]})["key"] == ["x"]
    linking = {"operation": "link", "model": "a", "relation": "r", "target": "t"}
    assert not contract.is_valid({**linking, "key": ["x"]})
    assert not contract.is_valid({**linking, "key": "x", "target": ["t"]})


INVALID: list[dict[str, Any]] = [
    {"operation": "link", "model": "a", "relation": "r", "target": "t"},
    {"operation": "link", "model": "a", "key": "k", "target": "t"},
    {"operation": "unlink", "model": "a", "key": "k", "relation": "r"},
    {"operation": "links", "model": "a", "key": "k"},
    {"operation": "load", "model": "a"},
    {"operation": "load", "key": "k"},
    {"operation": "load", "model": "", "key": "k"},
    {"operation": "load", "model": "a", "key": "k", "include": "contacts"},
    {"operation": "load", "model": "a", "key": "k", "include": [["contacts"]]},
    {"operation": "load", "model": "a", "key": True},
    {"operation": "find", "model": "a", "limit": -1},
    {"operation": "find", "model": "a", "offset": 1.5},
    {"operation": "find", "model": "a", "direction": "up"},
    {"operation": "find", "model": "a", "manager": ""},
    {"operation": "explode", "model": "a"},
]


@pytest.mark.parametrize("value", INVALID)
def test_malformed_calls_are_refused(value: dict[str, Any]) -> None:
    assert not contract.is_valid(value)
    with pytest.raises(ParseError):
        contract.parse(value)


def test_the_small_shapes() -> None:
    fields = create_contract(object_shape({"include": include_shape, "manager": manager_shape}))
    assert fields.is_valid({})
    assert fields.is_valid({"include": ["a.b", ""]})  # an empty segment is the tool's refusal
    assert not fields.is_valid({"include": "a.b"})
    assert fields.is_valid({"manager": "shop"})
    assert not fields.is_valid({"manager": ""})
