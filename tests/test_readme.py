"""Every ```python block of the README runs against the installed package."""

from __future__ import annotations

from conftest import ROOT
from support.fences import run_file


def test_readme_blocks_run() -> None:
    assert run_file(ROOT / "README.md") >= 6
