"""`validate_timeout_options`: fresh copies, exactly-once reads and exact structured errors."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.abort import AbortController
from orkestrel.contract import ContractError
from orkestrel.timeout import MAX_TIMEOUT_MS, validate_timeout_options


def test_returns_a_fresh_copy_without_absent_keys() -> None:
    options: dict[str, Any] = {"ms": 5}
    result = validate_timeout_options(options)
    assert result == {"ms": 5}
    assert result is not options
    assert validate_timeout_options({"ms": 5, "id": None, "signal": None}) == {"ms": 5}


def test_keeps_present_keys() -> None:
    signal = AbortController().signal
    result = validate_timeout_options({"id": "a", "ms": 0, "signal": signal})
    assert result == {"id": "a", "ms": 0, "signal": signal}
    assert result["signal"] is signal


def test_reads_each_option_exactly_once() -> None:
    reads: list[str] = []

    class Counting(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            reads.append(key)
            return super().__getitem__(key)

    validate_timeout_options(Counting(id="x", ms=1, signal=AbortController().signal))
    assert sorted(reads) == ["id", "ms", "signal"]


def test_a_hostile_read_is_a_bound_error_with_its_cause() -> None:
    class Hostile(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise TypeError("trap")

    with pytest.raises(ContractError) as caught:
        validate_timeout_options(Hostile(ms=1))
    error = caught.value
    assert error.code == "bound"
    assert str(error) == "Timeout: options could not be read"
    assert error.context == {
        "path": ["options"],
        "limit": "readable plain record",
        "received": "object",
    }
    assert isinstance(error.__cause__, TypeError)


@pytest.mark.parametrize(
    ("options", "code", "message", "path", "limit", "received"),
    [
        (None, "bound", "options must be a plain record", ["options"], "plain record", "null"),
        ([1], "bound", "options must be a plain record", ["options"], "plain record", "array"),
        (
            {"ms": 1, "id": 7},
            "literal",
            "id must be a string when defined",
            ["options", "id"],
            "string or undefined",
            "7",
        ),
        (
            {},
            "range",
            "ms must be an integer in the supported range",
            ["options", "ms"],
            "integer in [0, 2147483647]",
            "undefined",
        ),
        (
            {"ms": -1},
            "range",
            "ms must be an integer in the supported range",
            ["options", "ms"],
            "integer in [0, 2147483647]",
            "-1",
        ),
        (
            {"ms": 0.5},
            "range",
            "ms must be an integer in the supported range",
            ["options", "ms"],
            "integer in [0, 2147483647]",
            "0.5",
        ),
        (
            {"ms": True},
            "range",
            "ms must be an integer in the supported range",
            ["options", "ms"],
            "integer in [0, 2147483647]",
            "true",
        ),
        (
            {"ms": "5"},
            "range",
            "ms must be an integer in the supported range",
            ["options", "ms"],
            "integer in [0, 2147483647]",
            '"5"',
        ),
        (
            {"ms": 1, "signal": {"aborted": False}},
            "placement",
            "signal must be a native AbortSignal when defined",
            ["options", "signal"],
            "native AbortSignal or undefined",
            "object",
        ),
    ],
)
def test_exact_errors(
    options: Any, code: str, message: str, path: list[str], limit: str, received: str
) -> None:
    with pytest.raises(ContractError) as caught:
        validate_timeout_options(options)
    assert caught.value.code == code
    assert str(caught.value) == f"Timeout: {message}"
    assert caught.value.context == {"path": path, "limit": limit, "received": received}


@pytest.mark.parametrize("ms", [0, -0.0, 1, 5.0, MAX_TIMEOUT_MS])
def test_duration_boundaries_are_kept_as_given(ms: float) -> None:
    result = validate_timeout_options({"ms": ms})
    assert result["ms"] == ms
    assert type(result["ms"]) is type(ms)
