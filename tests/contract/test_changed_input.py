"""Input changed while a contract reads it.

On every version: `parse` runs no Python code of the input's own (no `__hash__`, `__eq__`,
`__repr__`, `__iter__`, `__len__`, `__getitem__`, `__index__` or `__float__` of a subclass), so
nothing on its thread can change the input mid-parse, and another thread that changes the dict
over and over only ever has one whole state parsed, or a `ContractError`.

Up to Python 3.11 a cycle collection can also start inside native code (from 3.12 it runs only
between bytecodes, and the tests that rest on it skip): `parse` allocates its output as it walks the
input, and an allocation may start a cycle collection, which runs `gc.callbacks` hooks and
finalizers: Python code that can change the dict being parsed. Here a `gc.callbacks` hook makes that
change at the k-th collection during one `parse`, for every k the call reaches, with the collector
set to run at every second allocation (`gc.set_threshold(1)`). CPython starts collections at fixed
points of a fixed sequence of allocations, so each k lands at the same point on every run: no
timing, no luck.

Every outcome must be what parsing the unchanged input gives, what parsing the changed input
gives, or a typed `ContractError`, never a record mixing the two. Before this test the walk
went on through a dict changed in place (same size), and a key deleted and another inserted
during the walk came back as a record holding the deleted key and missing one that was never
removed; the dict walk now refuses any change it sees (the version tag, checked after every
entry).

Records are built as `PyDict_Copy` of the input when their keys match it. That copy can only
disagree with the walk if the input changed between the walk and the clone of its key table,
and nothing runs there: the walk's last check comes after the last allocation of the walk, and
`PyDict_Copy` clones the table before it allocates the new dict (the one point where a
collection can start). So the sink's rebuild of a record whose copy disagrees
(`PySink::rebuild`) cannot be reached from Python; it stays as a guard against an interpreter
that orders those steps otherwise. What is reachable, and tested here, is the nearest thing: a
change made by a collection inside `PyDict_Copy` itself (the free list of dicts drained so
that the new dict is allocated), after the clone. The record is then the walked one, and a
value that only the copy still held (the input dropped it) is released only once the copy is
complete, so its finalizer never runs while the copy's table is being read.

A plain dict whose values change is instead drafted: copied at its first changed value, inside
the walk, and patched in place. A change then is refused like any other inside the walk, and
the draft stays out of the collector's reach until finished, so a finalizer that searches
`gc.get_objects()` never finds it. The same inputs with a deleted entry in their table are
built from their entries and copied after the walk, as above; both ways are tested.
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, ClassVar

import pytest

from orkestrel import _core
from orkestrel.contract import (
    ContractError,
    ParseError,
    array_shape,
    create_contract,
    integer_shape,
    json_shape,
    object_shape,
    optional_shape,
    record_shape,
    string_shape,
)
from support.threads import churning

RECORD = create_contract(record_shape(array_shape(integer_shape())))
OBJECT = create_contract(
    object_shape(
        {
            "a": array_shape(integer_shape()),
            "b": array_shape(integer_shape()),
            "c": array_shape(integer_shape()),
            "d": array_shape(integer_shape()),
            "e": optional_shape(array_shape(integer_shape())),
            "z": optional_shape(array_shape(integer_shape())),
        }
    )
)
MAX_COLLECTIONS = 64


def collects_inside_native_code() -> bool:
    """Whether a cycle collection can start inside a C call: true up to 3.11; from 3.12 the
    collector runs only between bytecodes, so the `gc.callbacks` tests below have no point."""
    seen: list[str] = []

    def hook(phase: str, info: dict[str, Any]) -> None:
        seen.append(phase)

    threshold = gc.get_threshold()
    gc.collect()
    gc.callbacks.append(hook)
    gc.set_threshold(1)
    try:
        # One C call that makes 64 tracked tuples: up to 3.11 that starts about 32 collections
        # inside it. From 3.12 a collection waits for the next bytecode, so at most two land
        # between the two reads of `seen`: one as the call starts, one as it returns. (Reading
        # `seen` from inside the call would not tell them apart: the one before the call is
        # already there.)
        before = len(seen)
        tuple(zip(range(64), range(64), strict=True))
        during = seen[before:].count("start")
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(hook)
    return during > 2


collecting = pytest.mark.skipif(
    not collects_inside_native_code(),
    reason="a collection cannot start inside native code on this Python (3.12+)",
)


def five() -> dict[str, Any]:
    # Five entries fill an 8-slot table: the insertion after a deletion resizes it, so the
    # changed dict has no deleted entry and the same size.
    return {"a": [1], "b": [2], "c": [3], "d": [4], "e": [5]}


def holed_five() -> dict[str, Any]:
    """`five()` in a table with a deleted entry first: `parse` builds such a record from its
    entries and copies it once the walk is done, where it drafts `five()` into a copy made at
    its first changed value, inside the walk."""
    record: dict[str, Any] = {"gone": None}
    record.update(five())
    del record["gone"]
    return record


def swap_first(record: dict[str, Any]) -> None:
    del record["a"]
    record["z"] = [9]


def replace_last(record: dict[str, Any]) -> None:
    record["e"] = [7]


@contextmanager
def collecting_at(k: int, change: Callable[[], None]) -> Iterator[list[int]]:
    """Runs `change` at the k-th collection inside the block, collecting at every second
    allocation, with the dict free list drained; yields the count of collections so far."""
    seen = [0]
    infos: list[Any] = []  # kept, so the info dicts do not refill the free list

    def hook(phase: str, info: dict[str, Any]) -> None:
        infos.append(info)
        if phase == "start":
            seen[0] += 1
            if seen[0] == k:
                change()

    threshold = gc.get_threshold()
    gc.collect()
    gc.callbacks.append(hook)
    drained: list[dict[str, Any]] = [
        {} for _ in range(100)
    ]  # new dicts take every dict in the free list
    gc.set_threshold(1)
    try:
        yield seen
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(hook)
        del drained


def outcomes(
    contract: Any, make: Callable[[], dict[str, Any]], change: Callable[[dict[str, Any]], None]
) -> list[tuple[str, Any, dict[str, Any]]]:
    """The outcome of one parse for every collection point k the parse reaches."""
    found: list[tuple[str, Any, dict[str, Any]]] = []
    for k in range(1, MAX_COLLECTIONS):
        record = make()
        with collecting_at(k, partial(change, record)) as seen:
            try:
                outcome: tuple[str, Any] = ("parsed", contract.parse(record))
            except ContractError as error:
                outcome = ("refused", str(error))
        if seen[0] < k:  # the change never ran: every later k is the same
            assert outcome == ("parsed", contract.parse(make()))
            return found
        found.append((outcome[0], outcome[1], record))
    raise AssertionError("the parse kept collecting")


@collecting
@pytest.mark.parametrize("make", [five, holed_five], ids=["drafted", "built"])
@pytest.mark.parametrize("contract", [RECORD, OBJECT], ids=["record", "object"])
@pytest.mark.parametrize("change", [swap_first, replace_last])
def test_a_dict_changed_during_parse_gives_one_state_or_a_contract_error(
    contract: Any, change: Callable[[dict[str, Any]], None], make: Callable[[], dict[str, Any]]
) -> None:
    unchanged = contract.parse(make())
    points = outcomes(contract, make, change)
    refused = [message for kind, message, _ in points if kind == "refused"]
    parsed = [(out, record) for kind, out, record in points if kind == "parsed"]
    for out, record in parsed:
        assert out == unchanged or out == contract.parse(record)
        assert list(out) == list(unchanged) or list(out) == list(contract.parse(record))
    # Inside the walk (the draft's copy included) a change is refused, seen by the dict's
    # version tag; a record built from its entries is also copied after the walk, where a
    # change leaves the walked record.
    assert refused
    assert all("could not be read" in message for message in refused)
    if make is holed_five:
        assert parsed
    assert all(out == unchanged for out, _ in parsed)


@collecting
def test_a_nested_record_changed_during_parse_is_refused_or_whole() -> None:
    contract = create_contract(record_shape(record_shape(array_shape(integer_shape()))))

    def make() -> dict[str, Any]:
        return {"outer": five(), "next": {"x": [0]}}

    def change(record: dict[str, Any]) -> None:
        swap_first(record["outer"])

    unchanged = contract.parse(make())
    for kind, out, record in outcomes(contract, make, change):
        if kind == "parsed":
            assert out in (unchanged, contract.parse(record))


class Dropped(list[int]):
    """A list whose finalizer, once the input dropped it, looks for the record being built
    (through `gc.get_objects`, as hostile code could) and notes whether it was complete:
    no value of it still the input's own."""

    input: ClassVar[dict[str, Any] | None] = None
    saw: ClassVar[list[bool]] = []

    def __del__(self) -> None:
        source = Dropped.input
        if source is None:
            return
        building = [
            found
            for found in gc.get_objects()
            if type(found) is dict and found is not source and list(found) == list(source)
        ]
        Dropped.saw.append(
            not any(found[key] is source[key] for found in building for key in found)
        )


@collecting
@pytest.mark.parametrize("holed", [False, True], ids=["drafted", "built"])
def test_a_value_only_the_copy_holds_is_released_after_the_copy_is_complete(holed: bool) -> None:
    """Built: the finalizer runs once the copy made after the walk is complete. Drafted: the
    copy is made inside the walk, which the change fails; it is out of the collector's reach
    until finished, so the finalizer never finds it holding the input's own values."""

    def make() -> dict[str, Any]:
        record: dict[str, Any] = {"gone": None} if holed else {}
        record.update({"a": [1], "b": Dropped([2]), "c": [3], "d": [4], "e": [5]})
        record.pop("gone", None)
        return record

    def change(record: dict[str, Any]) -> None:
        Dropped.input = record
        record["b"] = [2]  # the input drops its `Dropped`; only the copy may still hold it

    unchanged = RECORD.parse(make())
    Dropped.saw.clear()
    try:
        points = outcomes(RECORD, make, change)
    finally:
        Dropped.input = None
    parsed = [out for kind, out, _ in points if kind == "parsed"]
    assert parsed or not holed
    assert all(out == unchanged for out in parsed)
    assert Dropped.saw
    assert all(Dropped.saw)


def test_is_valid_runs_no_python_code() -> None:
    """`is_valid` reads through borrowed pointers, which is sound only if nothing can change
    a container while it reads: the reads that allocate (a `str` with a lone surrogate, an
    `int` beyond a double) pause the collector, so no hook or finalizer runs."""
    contract = create_contract(
        object_shape(
            {"texts": array_shape(string_shape(pattern="x")), "any": array_shape(json_shape())}
        )
    )
    # Each lone surrogate fails the UTF-8 read (an exception is allocated, then cleared) and
    # each huge int overflows the double read the same way.
    value: dict[str, list[Any]] = {
        "texts": ["\ud800x", "x\udfff"] * 4,
        "any": ["\ud801", 1, 10**400],
    }
    calls: list[int] = []

    def change() -> None:
        calls.append(1)
        value["texts"].clear()
        value.clear()

    expected = contract.is_valid(value)
    with collecting_at(1, change):
        got = contract.is_valid(value)
    assert got is expected
    assert not calls
    assert value["texts"]


def spying(base: type, calls: list[str]) -> type:
    """A subclass of `base` whose overridable hooks note each call before doing their work."""
    hooks = ["__hash__", "__eq__", "__repr__", "__str__", "__len__", "__iter__", "__getitem__"]
    hooks += ["__index__", "__int__", "__float__", "keys", "items", "values", "get"]
    spies: dict[str, Any] = {}
    for name in hooks:
        if hasattr(base, name):

            def spy(self: Any, *args: Any, _name: str = name) -> Any:
                calls.append(f"{base.__name__}.{_name}")
                return getattr(base, _name)(self, *args)

            spies[name] = spy
    return type(f"Spying{base.__name__}", (base,), spies)


@pytest.mark.parametrize("contract", [RECORD, OBJECT, create_contract(json_shape())])
def test_parse_runs_no_python_code_of_the_input(contract: Any) -> None:
    calls: list[str] = []
    key, items, number = spying(str, calls), spying(list, calls), spying(int, calls)
    mapping, real = spying(dict, calls), spying(float, calls)
    names = "abcde"
    value = mapping({key(name): items([number(n), real(n)]) for n, name in enumerate(names)})
    plain = {name: [n, float(n)] for n, name in enumerate(names)}

    def outcome(given: Any) -> Any:
        try:
            return contract.parse(given)
        except ParseError as error:
            return str(error)

    expected = outcome(plain)
    calls.clear()
    got = outcome(value)
    assert calls == []
    assert got == expected


def steps() -> list[Callable[[dict[str, Any]], None]]:
    """One change at a time, round a cycle that comes back to the state it started from."""
    return [
        lambda record: record.pop("a"),
        lambda record: record.__setitem__("z", [9]),
        lambda record: record.__setitem__("e", [7]),
        lambda record: record.pop("z"),
        lambda record: record.__setitem__("a", [1]),
        lambda record: record.__setitem__("e", [5]),
    ]


def cycle(record: dict[str, Any]) -> None:
    """Takes `record` once round the `steps()` cycle."""
    for step in steps():
        step(record)


@pytest.mark.parametrize("contract", [RECORD, OBJECT], ids=["record", "object"])
def test_a_dict_another_thread_changes_during_parse_gives_one_state_or_a_contract_error(
    contract: Any,
) -> None:
    def outcome(record: dict[str, Any]) -> tuple[str, Any]:
        try:
            return ("parsed", list(contract.parse(record).items()))
        except ParseError as error:
            return ("invalid", str(error))
        except ContractError as error:
            return ("refused", "could not be read" in str(error))

    record = five()
    states = [outcome(record)]
    for _ in range(2):
        for step in steps():
            step(record)
            states.append(outcome(record))
    record = five()
    seen: list[tuple[str, Any]] = []
    # At least 3,000 parses, and on until two states were seen (10 s at most): a parse that
    # always meets the churn at the same point of its cycle proves nothing. Random pauses keep
    # the two threads from falling into step.
    pauses = random.Random(3)
    deadline = time.monotonic() + 10
    with churning(partial(cycle, record)):
        while len(seen) < 3000 or (
            len({repr(state) for state in seen}) < 2 and time.monotonic() < deadline
        ):
            for _ in range(pauses.randrange(64)):
                pass
            seen.append(outcome(record))
    assert [state for state in seen if state not in [*states, ("refused", True)]] == []
    assert len({repr(state) for state in seen}) > 1, "the other thread never ran"


@pytest.mark.skipif(not hasattr(_core, "_debug_parses"), reason="debug builds alone count parses")
@pytest.mark.skipif(
    getattr(sys, "_is_gil_enabled", lambda: True)(),
    reason="only another thread running during the call (no GIL) can change a value between "
    "a parse and its report",
)
def test_a_value_another_thread_keeps_changing_is_parsed_three_times_at_most() -> None:
    """The contract guide's bound: a failed parse whose report finds no fault is parsed again,
    three parses at most, and a call that used all three without an answer is refused as
    unreadable. The object contract, since some states of the cycle miss its required `a`."""
    contract = OBJECT
    count: Callable[[], int] = vars(_core)["_debug_parses"]
    record = five()
    calls: list[tuple[int, str]] = []
    # On until some call was parsed again (20 s at most), and at least 3,000 calls.
    deadline = time.monotonic() + 20
    with churning(partial(cycle, record)):
        while len(calls) < 3000 or (
            max(used for used, _ in calls) < 2 and time.monotonic() < deadline
        ):
            before = count()
            try:
                contract.parse(record)
                kind = "parsed"
            except ParseError:
                kind = "invalid"
            except ContractError as error:
                kind = "unreadable" if "value could not be read" in str(error) else str(error)
            calls.append((count() - before, kind))
    assert {used for used, _ in calls} <= {1, 2, 3}
    assert max(used for used, _ in calls) >= 2, "no parse met a change before its report"
    assert {kind for _, kind in calls} <= {"parsed", "invalid", "unreadable"}
    assert all(used == 3 for used, kind in calls if kind == "unreadable")


def fixed_last(record: dict[str, Any]) -> None:
    record["e"] = [5]


@collecting
@pytest.mark.parametrize("make", [five, holed_five], ids=["drafted", "built"])
@pytest.mark.parametrize("contract", [RECORD, OBJECT], ids=["record", "object"])
def test_a_failed_parse_whose_input_a_collection_fixes_reports_one_state(
    contract: Any, make: Callable[[], dict[str, Any]]
) -> None:
    """`parse`'s report is a second walk, after the parse: a change landing between the two
    would leave a `ParseError` naming no fault (a free-threaded build, where another thread
    can make it, parses such a value again; `test_a_dict_another_thread_changes_...` covers
    it). With a GIL no collection can start between them: a hook that fixes the one bad value
    at every collection point of the call gives a `ContractError` (inside the walk) or the
    unchanged value's whole report (after it), never a report of the fixed value."""

    def broken() -> dict[str, Any]:
        record = make()
        record["e"] = ["x"]
        return record

    report = contract.explain(broken())
    assert report
    seen_kinds: list[Any] = []
    for k in range(1, MAX_COLLECTIONS):
        record = broken()
        with collecting_at(k, partial(fixed_last, record)) as seen:
            seen_kinds.append(outcome_of(contract, record))
        if seen[0] < k:
            break
    assert "refused" in seen_kinds
    assert ("invalid", report) in seen_kinds
    assert [kind for kind in seen_kinds if kind not in ["refused", ("invalid", report)]] == []


def outcome_of(contract: Any, record: dict[str, Any]) -> Any:
    """`"parsed"`, `("invalid", faults)`, or `"refused"` for a `ContractError` of a value that
    could not be read."""
    try:
        contract.parse(record)
    except ParseError as error:
        return ("invalid", error.faults)
    except ContractError as error:
        return "refused" if "could not be read" in str(error) else str(error)
    return "parsed"
