"""The copied conformance cases stay identical to the shared originals when those are present."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent.parent / "shared" / "conformance"


@pytest.mark.parametrize("name", ["README.md", "contract/cases.jsonl", "contract/expected.jsonl"])
def test_copy_matches_shared(name: str) -> None:
    original = SHARED / name
    if not original.exists():
        pytest.skip("no ../shared checkout next to this clone")
    assert (HERE / name).read_bytes() == original.read_bytes()
