"""Shared test configuration: hypothesis profiles, the installed-package check, and SQLite
connections collected unclosed warning on every version, as they do from Python 3.13."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
