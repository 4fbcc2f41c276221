"""Checks of the options a broker and a manager are built with."""

from __future__ import annotations

from orkestrel.timeout import MAX_TIMEOUT_MS


def check_timeout(value: object) -> int:
    """Returns a valid expiry in milliseconds, or raises `ValueError`: an `int` from 1 to
    `MAX_TIMEOUT_MS`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TIMEOUT_MS:
        raise ValueError(f"timeout must be an integer from 1 to {MAX_TIMEOUT_MS} ms, got {value!r}")
    return value


def check_cap(value: object, name: str = "cap") -> int | None:
    """Returns a valid cap (`None` for no cap) for the option `name`, or raises `ValueError`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer or None, got {value!r}")
    return value


def check_name(value: object) -> str:
    """Returns a valid terminal name, or raises `ValueError`: a non-empty string of at most 128
    characters."""
    if not isinstance(value, str) or not value or len(value) > 128:
        raise ValueError(
            f"a terminal name is a non-empty string of at most 128 characters, got {value!r}"
        )
    return value
