"""Parsers of option values shared by the command's option groups."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """Parses a positive integer, the value of a count option."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value
