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


def test_a_claim_may_close_a_wrapped_expression_or_an_assignment() -> None:
    run("values = [\n    n * 2 for n in range(3)\n]  # -> [0, 2, 4]\n", "wrapped")
    run("total = sum(\n    [1, 2]\n)  # -> 3\n", "assigned")
    with pytest.raises(AssertionError):
        run("[\n    1\n]  # -> [2]\n", "wrong")


def test_claims_inside_blocks_are_checked() -> None:
    with pytest.raises(AssertionError):
        run("for n in range(2):\n    n  # -> 0\n", "loop")
