"""The seed mapping table in docs/guides/README.md is current, and the copied seeds are in sync."""

from __future__ import annotations

from pathlib import Path

import pytest

from guides.seedmap import SEEDS, current, python_name, render, seed_names

SHARED = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def test_mapping_table_is_current() -> None:
    assert current() == render(), "run: python tests/guides/seedmap.py --write"


def test_names_map_mechanically() -> None:
    assert python_name("createToolManager") == "create_tool_manager"
    assert python_name("isToolCall") == "is_tool_call"
    assert python_name("ToolManager") == "ToolManager"
    assert python_name("MAX_TIMEOUT_MS") == "MAX_TIMEOUT_MS"


def test_every_seed_has_surface_names() -> None:
    for path in SEEDS.glob("*.md"):
        assert len(seed_names(path)) >= 8, path.name


@pytest.mark.parametrize("name", ["tool.md", "timeout.md", "toolbox.md"])
def test_seed_copies_match_shared(name: str) -> None:
    if not (SHARED / name).exists():
        pytest.skip("no ../shared checkout next to this clone")
    assert (SEEDS / name).read_bytes() == (SHARED / name).read_bytes()
