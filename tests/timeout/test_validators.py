"""The total guards: durations and genuine signals."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.abort import AbortController, AbortSignal
from orkestrel.timeout import MAX_TIMEOUT_MS, is_timeout_duration, is_timeout_signal


@pytest.mark.parametrize("value", [0, -0.0, 1, 2.0, MAX_TIMEOUT_MS])
def test_accepts_whole_durations_in_range(value: Any) -> None:
    assert is_timeout_duration(value)


@pytest.mark.parametrize(
    "value",
    [
        "1",
        float("inf"),
        float("-inf"),
        float("nan"),
        -1,
        0.5,
        MAX_TIMEOUT_MS + 1,
        True,
        False,
        None,
        [],
        2**80,
    ],
)
def test_refuses_everything_else(value: Any) -> None:
    assert not is_timeout_duration(value)


def test_duration_guard_is_total_for_a_hostile_int() -> None:
    class Hostile(int):
        def __le__(self, other: object) -> bool:
            raise RuntimeError("trap")

        def __ge__(self, other: object) -> bool:
            raise RuntimeError("trap")

    assert not is_timeout_duration(Hostile(5))


def test_accepts_genuine_signals_only() -> None:
    class Spoof:
        aborted = False
        reason = None

    class ClassSpoof:
        @property
        def __class__(self) -> type:  # type: ignore[override]
            return AbortSignal

    assert is_timeout_signal(AbortController().signal)
    assert isinstance(ClassSpoof(), AbortSignal)
    assert not is_timeout_signal(ClassSpoof())
    assert not is_timeout_signal(Spoof())
    assert not is_timeout_signal(AbortSignal)
    assert not is_timeout_signal(None)
