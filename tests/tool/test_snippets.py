"""The README snippet for `@tool`, `export` and `definitions_cost` runs, and its claims hold."""

from __future__ import annotations

from conftest import ROOT
from support.fences import run_file


def test_every_python_fence_of_the_decorator_snippet_runs() -> None:
    assert run_file(ROOT / "docs" / "snippets" / "tool-decorator.md") == 3
