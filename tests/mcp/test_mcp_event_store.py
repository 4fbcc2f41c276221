"""The bounds of `EventStore`, the events kept for clients that reconnect with
`Last-Event-ID`: per stream, in bytes over every session, in time, and per session."""

from __future__ import annotations

import pytest

from orkestrel.mcp import EventStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def messages(store: EventStore, session: str, stream: str, count: int, size: int) -> list[int]:
    return [store.store(session, stream, {"n": n}, size) for n in range(count)]


def test_a_stream_keeps_its_last_events_only() -> None:
    store = EventStore(per_stream=3)
    first, *rest = messages(store, "a", "7", 5, 10)
    assert store.find("a", first) is None
    kept = rest[-3:]
    assert [number for number, _ in store.after("a", kept[0])] == kept[1:]
    assert [event.message for _, event in store.after("a", kept[0])] == [{"n": 3}, {"n": 4}]
    assert store.size == 30


def test_the_byte_bound_drops_the_oldest_events_of_every_session() -> None:
    store = EventStore(max_bytes=100)
    old = messages(store, "a", "1", 5, 20)
    new = messages(store, "b", "1", 3, 20)
    assert store.size <= 100
    assert [store.find("a", number) is not None for number in old] == [False] * 3 + [True] * 2
    assert all(store.find("b", number) is not None for number in new)


def test_an_event_expires_after_its_ttl() -> None:
    clock = Clock()
    store = EventStore(ttl=10, clock=clock)
    (early,) = messages(store, "a", "1", 1, 5)
    clock.now = 6
    (late,) = messages(store, "a", "1", 1, 5)
    clock.now = 11
    assert store.find("a", early) is None
    assert store.find("a", late) is not None
    assert store.size == 5


def test_an_event_is_found_in_its_own_session_only_and_goes_with_it() -> None:
    store = EventStore()
    (mine,) = messages(store, "a", "1", 1, 5)
    (theirs,) = messages(store, "b", "1", 1, 5)
    assert mine != theirs
    assert store.find("b", mine) is None
    assert store.after("b", mine) == []
    store.forget("a")
    assert store.find("a", mine) is None
    assert store.find("b", theirs) is not None
    assert store.size == 5


@pytest.mark.parametrize(
    ("options", "line"),
    [
        ({"per_stream": 0}, "per_stream must be a positive integer, got 0"),
        ({"max_bytes": True}, "max_bytes must be a positive integer, got True"),
        ({"ttl": -1}, "ttl must be a positive number of seconds, got -1"),
    ],
)
def test_bounds_that_bound_nothing_are_refused(options: dict[str, object], line: str) -> None:
    with pytest.raises(ValueError, match=line):
        EventStore(**options)  # type: ignore[arg-type]
