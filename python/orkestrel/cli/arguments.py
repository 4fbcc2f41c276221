"""Parsers of option values shared by the command's option groups."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """Parses a positive integer, the value of a count option."""
    return _int_from(text, 1, "a positive integer")


def nonnegative_int(text: str) -> int:
    """Parses an integer from 0, the value of a cap where 0 means none."""
    return _int_from(text, 0, "a nonnegative integer")


def _int_from(text: str, least: int, expected: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """Parses a finite positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value
