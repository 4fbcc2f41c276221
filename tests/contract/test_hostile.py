"""Hostile input is normal input: deep nesting, cycles, huge numbers and strings, exotic
containers and objects whose dunder methods raise. The guard answers False, explain returns
faults and parse raises ParseError or ContractError; nothing crashes."""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from typing import Any

import pytest

from orkestrel.contract import (
    Contract,
    ContractError,
    ParseError,
    array_shape,
    create_contract,
    integer_shape,
    json_shape,
    literal_shape,
    nullable_shape,
    number_shape,
    object_shape,
    optional_shape,
    raw_shape,
    record_shape,
    schema_to_shape,
    string_shape,
    union_shape,
    validate_shape,
)

DEEP = 100_000


def deep_list(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


def deep_dict(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


class Hostile:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __str__(self) -> str:
        raise RuntimeError("str")

    def __repr__(self) -> str:
        raise RuntimeError("repr")

    def __len__(self) -> int:
        raise RuntimeError("len")

    def __iter__(self) -> Any:
        raise RuntimeError("iter")


class HostileDict(dict[str, Any]):
    def __len__(self) -> int:
        raise RuntimeError("len")

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("getitem")

    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def keys(self) -> Any:
        raise RuntimeError("keys")

    def items(self) -> Any:
        raise RuntimeError("items")


class HostileStr(str):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __len__(self) -> int:
        raise RuntimeError("len")

    def __str__(self) -> str:
        raise RuntimeError("str")


class HostileKey(str):
    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")


class HostileInt(int):
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")

    def __index__(self) -> int:
        raise RuntimeError("index")

    def __int__(self) -> int:
        raise RuntimeError("int")


CONTRACTS = {
    "json": create_contract(json_shape()),
    "array": create_contract(array_shape(array_shape(string_shape()))),
    "object": create_contract(object_shape({"a": object_shape({"a": string_shape()})})),
    "record": create_contract(record_shape(json_shape())),
    "union": create_contract(union_shape(number_shape(), array_shape(json_shape()))),
    "nullable": create_contract(nullable_shape(object_shape({"a": optional_shape(json_shape())}))),
    "literal": create_contract(literal_shape(["a", 1, True])),
    "string": create_contract(string_shape(min=1, max=5, pattern="^[a-z]+$")),
    "integer": create_contract(integer_shape(min=0)),
}


def settle(contract: Contract, value: Any) -> tuple[bool, list[Any]]:
    """Runs all three doors; each must answer with its own kind of result."""
    valid = contract.is_valid(value)
    assert isinstance(valid, bool)
    faults = contract.explain(value)
    assert isinstance(faults, list)
    outcome: Any
    try:
        contract.parse(value)
    except ParseError as error:
        outcome = error.faults
    except ContractError:
        outcome = None
    else:
        outcome = []
    assert outcome is None or outcome == faults
    return valid, faults


HOSTILE_VALUES = {
    "deep list": deep_list(DEEP),
    "deep dict": deep_dict(DEEP),
    "big int": 2**200,
    "huge int": 10**400,
    "negative huge int": -(10**400),
    "nan": float("nan"),
    "inf": float("inf"),
    "hostile object": Hostile(),
    "hostile dict": HostileDict(a="x"),
    "hostile str": HostileStr("abc"),
    "hostile int": HostileInt(3),
    "non-str keys": {1: "x", "a": "y"},
    "tuple": ("a",),
    "set": {1, 2},
    "bytes": b"abc",
    "ten megabytes": "x" * 10_000_000,
    "lone surrogate": "\ud800",
    "function": print,
    "type": int,
}


@pytest.mark.parametrize("value_name", list(HOSTILE_VALUES))
@pytest.mark.parametrize("contract_name", list(CONTRACTS))
def test_hostile_values_get_typed_answers(contract_name: str, value_name: str) -> None:
    settle(CONTRACTS[contract_name], HOSTILE_VALUES[value_name])


def test_cycles_are_not_json_and_finite_shapes_stay_finite() -> None:
    cyclic_list: list[Any] = []
    cyclic_list.append(cyclic_list)
    cyclic_dict: dict[str, Any] = {}
    cyclic_dict["a"] = cyclic_dict
    for value in (cyclic_list, cyclic_dict):
        for contract in CONTRACTS.values():
            settle(contract, value)
        assert not CONTRACTS["json"].is_valid(value)
    assert CONTRACTS["object"].explain(cyclic_dict) == [
        {"reason": "type", "path": ["a", "a"], "expected": "string", "received": "object"}
    ]


def test_dict_subclasses_are_read_from_storage() -> None:
    contract = CONTRACTS["object"]
    assert contract.is_valid(OrderedDict(a={"a": "x"}))
    assert contract.is_valid(defaultdict(list, a={"a": "x"}))
    hostile = HostileDict(a=HostileDict(a="x"))
    assert contract.is_valid(hostile)
    assert contract.parse(hostile) == {"a": {"a": "x"}}


class LyingDict(dict[str, Any]):
    """Stores one thing and answers another through every method a reader would call."""

    def __getitem__(self, key: str) -> Any:
        return "destroy" if key == "operation" else super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key]

    def items(self) -> Any:
        return [(key, self[key]) for key in self]


def _no_shared_container(out: Any, value: Any) -> None:
    seen: set[int] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            seen.add(id(node))
            stack.extend(node.values() if isinstance(node, dict) else node)
    stack = [out]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            assert type(node) in (dict, list)
            assert id(node) not in seen
            stack.extend(dict.values(node) if isinstance(node, dict) else node)


def test_union_parse_returns_fresh_plain_containers() -> None:
    arms = union_shape(
        object_shape({"operation": literal_shape(["tables"]), "id": string_shape()}),
        object_shape({"operation": literal_shape(["destroy"]), "id": string_shape()}),
    )
    contract = create_contract(arms)
    lying = LyingDict(operation="tables", id="db")
    out = contract.parse(lying)
    assert type(out) is dict
    assert out["operation"] == "tables"
    assert out == {"operation": "tables", "id": "db"}
    listed = create_contract(union_shape(array_shape(string_shape()), string_shape()))
    items = ["a", "b"]
    assert listed.parse(items) == items
    assert listed.parse(items) is not items


def test_json_raw_and_open_values_come_back_in_fresh_containers() -> None:
    shared = {"k": [1, 2]}
    inner = LyingDict(operation="x", deep=[shared, shared])
    value = {"json": inner, "raw": [inner], "extra": {"x": [inner]}}
    contract = create_contract(
        object_shape(
            {"json": json_shape(), "raw": raw_shape({})},
            additional_properties=True,
        )
    )
    out = contract.parse(value)
    _no_shared_container(out, value)
    assert out == {
        "json": {"operation": "x", "deep": [shared, shared]},
        "raw": [{"operation": "x", "deep": [shared, shared]}],
        "extra": {"x": [{"operation": "x", "deep": [shared, shared]}]},
    }
    assert dict.__getitem__(out["json"], "operation") == "x"
    copied = out["json"]["deep"]
    assert copied[0] is copied[1]
    not_json = {"raw": [object()]}
    assert (
        create_contract(object_shape({"raw": raw_shape({})})).parse(not_json)["raw"]
        is (not_json["raw"])
    )


def test_a_shared_json_value_is_copied_once_not_expanded() -> None:
    node: Any = [1]
    for _ in range(12):
        node = [node, node]
    out = create_contract(json_shape()).parse(node)
    assert out == node
    assert out is not node
    assert out[0] is out[1]
    assert out[0][0] is out[1][1]


def test_hostile_leaves_are_read_without_running_user_code() -> None:
    assert CONTRACTS["string"].is_valid(HostileStr("abc"))
    text = HostileStr("abc")
    assert CONTRACTS["string"].parse(text) is text
    assert CONTRACTS["integer"].is_valid(HostileInt(3))
    assert create_contract(literal_shape(["abc"])).is_valid(HostileStr("abc"))
    opened = create_contract(record_shape(string_shape()))
    out = opened.parse({HostileKey("k"): "v", "j": "w"})
    assert out == {"k": "v", "j": "w"}
    assert all(type(key) is str for key in out)


def test_non_str_keys_are_not_records() -> None:
    contract = create_contract(record_shape(string_shape()))
    assert not contract.is_valid({1: "x"})
    assert contract.explain({1: "x"}) == [
        {"reason": "type", "path": [], "expected": "object", "received": "object"}
    ]
    with pytest.raises(ParseError):
        contract.parse({1: "x"})


def test_numbers_beyond_64_bits_behave_like_doubles() -> None:
    bounded = create_contract(number_shape(max=1e300))
    assert bounded.is_valid(2**900)
    assert not bounded.is_valid(2**1000)
    assert bounded.explain(10**400) == [
        {"reason": "type", "path": [], "expected": "number", "received": "Infinity"}
    ]
    assert create_contract(string_shape()).parse(2**70) == "1.1805916207174113e+21"
    assert create_contract(literal_shape([2**53])).is_valid(2**53 + 1)


def test_ten_megabyte_strings() -> None:
    text = "a" * 10_000_000
    contract = create_contract(string_shape(max=5, pattern="^a+$"))
    faults = contract.explain(text)
    assert faults[0]["received"] == '"' + "a" * 63 + "…"
    numbers = create_contract(number_shape())
    assert numbers.parse(" " * 10_000_000 + "42") == 42
    assert create_contract(literal_shape(["a"])).parse("\t" * 5_000_000 + "a") == "a"


def test_deep_shapes_are_refused_without_recursion() -> None:
    shape: dict[str, Any] = {"type": "null"}
    for index in range(DEEP):
        if index % 3 == 0:
            shape = {"type": "array", "items": shape}
        elif index % 3 == 1:
            shape = {"type": "union", "variants": [shape]}
        else:
            shape = {"type": "object", "properties": {"k": shape}}
    with pytest.raises(ContractError) as caught:
        create_contract(shape)
    assert caught.value.code == "depth"
    schema: dict[str, Any] = {}
    inner = schema
    for _ in range(DEEP):
        inner["items"] = {}
        inner = inner["items"]
    with pytest.raises(ContractError) as raw:
        validate_shape({"type": "raw", "schema": schema})
    assert raw.value.code == "structure"


def test_cyclic_shapes_and_schemas() -> None:
    shape: dict[str, Any] = {"type": "array"}
    shape["items"] = shape
    with pytest.raises(ContractError) as caught:
        create_contract(shape)
    assert (caught.value.code, caught.value.context) == ("cycle", {"path": ["items"]})
    raw: dict[str, Any] = {}
    raw["items"] = raw
    with pytest.raises(ContractError, match="cycle"):
        validate_shape({"type": "raw", "schema": raw})
    schema: dict[str, Any] = {"type": "object"}
    schema["properties"] = {"self": schema}
    widened = create_contract(schema_to_shape(schema))
    assert widened.is_valid({"self": {"anything": 1}})


def test_deep_schemas_widen_at_the_depth_budget() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(DEEP):
        schema = {"anyOf": [schema]}
    contract = create_contract(schema_to_shape(schema))
    assert contract.is_valid(12)


def test_deep_contracts_run_on_small_thread_stacks() -> None:
    shape: dict[str, Any] = {"type": "null"}
    value: Any = None
    for index in range(340):
        if index % 2:
            shape = {"type": "object", "properties": {"a": {"type": "nullable", "inner": shape}}}
            value = {"a": value}
        else:
            shape = {"type": "array", "items": shape, "min": 1}
            value = [value]
    results: list[Any] = []

    def work() -> None:
        contract = create_contract(shape)
        results.append((contract.is_valid(value), contract.explain(value), contract.parse(value)))

    previous = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(previous)
    assert results == [(True, [], value)]


def test_one_contract_serves_many_threads() -> None:
    contract = CONTRACTS["object"]
    failures: list[Any] = []

    def work(index: int) -> None:
        for _ in range(200):
            good = {"a": {"a": f"x{index}"}}
            if not contract.is_valid(good) or contract.parse(good) != good:
                failures.append(index)
            if contract.explain({"a": {"a": [index]}}) == []:
                failures.append(index)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_hostile_declarations_are_refused_with_contract_errors() -> None:
    for shape in (
        Hostile(),
        HostileDict(type="string"),
        {"type": HostileStr("string")},
        {"type": "object", "properties": {"a": Hostile()}},
        {"type": "literal", "values": [Hostile()]},
        {"type": "union", "variants": (string_shape(),)},
        {1: "string"},
    ):
        code: str | None = None
        try:
            contract = create_contract(shape)
        except ContractError as error:
            code = error.code
        else:
            assert isinstance(contract.is_valid("x"), bool)
        assert code in (None, "structure")
    for schema in (Hostile(), HostileDict(type="string"), {"type": HostileStr("string")}, {1: 2}):
        widened = create_contract(schema_to_shape(schema))
        assert isinstance(widened.is_valid(Hostile()), bool)
