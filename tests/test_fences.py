"""The fence runner itself: claims are asserted, and await works at top level."""

from __future__ import annotations

import pytest

from support.fences import fences, run, section


def test_a_true_claim_passes_and_a_false_one_fails() -> None:
    run("x = 1 + 1  # -> 2\n", "ok")
    with pytest.raises(AssertionError):
        run("x = 1 + 1\nx  # -> 3\n", "bad")


def test_top_level_await_runs() -> None:
    namespace = run("import anyio\nawait anyio.sleep(0)\ndone = True  # -> True\n", "await")
    assert namespace["done"] is True


def test_fences_and_sections_are_found() -> None:
    text = "# t\n\n## A\n\n```python\na = 1\n```\n\n## B\n\n```python\nb = 2\n```\n"
    assert fences(text) == ["a = 1\n", "b = 2\n"]
    assert fences(section(text, "## B")) == ["b = 2\n"]
