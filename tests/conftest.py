"""Shared test configuration: hypothesis profiles, the installed-package check, SQLite
connections collected unclosed warning on every version, as they do from Python 3.13, and no
process a test started may outlive the run."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import orkestrel

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

# genson's tests, vendored as data: tests/infer/test_genson_suite.py runs them.
collect_ignore = ["genson_suite"]

from support.sqlite_ledger import warn_unclosed  # noqa: E402 (found through the path above)

warn_unclosed()

if os.environ.get("ORKESTREL_REQUIRE_INSTALLED") == "1":
    location = Path(orkestrel.__file__).resolve()
    if ROOT in location.parents:
        raise RuntimeError(f"tests must run against the installed wheel, not {location}")


_LIFELONG = (b"from multiprocessing.resource_tracker", b"from multiprocessing.forkserver")
"""multiprocessing's helpers, which live as long as this process by design."""


def _live_children() -> list[str]:
    """The command lines of this process's children still running (not zombies), less
    multiprocessing's own helpers."""
    found = []
    for listing in Path("/proc/self/task").glob("*/children"):
        for pid in listing.read_text().split():
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if state != "Z" and not command.startswith(_LIFELONG, command.find(b"from ")):
                found.append(f"{pid}: {command.decode(errors='replace').strip()}")
    return found


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_run() -> Iterator[None]:
    """Fails the run if a process a test started is still running at the end. This is what
    the asyncio subprocess `ResourceWarning`s ignored in pyproject.toml cannot tell reliably:
    they fire when a client's event loop closed before it saw its exited server reaped."""
    yield
    if sys.platform == "linux":
        assert _live_children() == [], "processes outlived the test run"
