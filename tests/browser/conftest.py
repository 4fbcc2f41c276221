"""The answering page in a real headless Chromium: Debian's `chromium`, driven by Playwright."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import ROOT

CHROMIUM = os.environ.get("ORKESTREL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def chromium() -> str:
    """The Chromium binary; without it the tests skip, or fail under
    `ORKESTREL_REQUIRE_BROWSER=1` (set by `.ci/run`, which installs it)."""
    if not Path(CHROMIUM).exists():
        message = (
            f"no Chromium at {CHROMIUM}: the answering page's browser tests need Debian's "
            "chromium package (or ORKESTREL_CHROMIUM naming a Chromium binary)"
        )
        if os.environ.get("ORKESTREL_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return CHROMIUM


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where the browser tests save screenshots: `$ORKESTREL_ARTIFACTS` or `.artifacts/`."""
    folder = Path(os.environ.get("ORKESTREL_ARTIFACTS") or ROOT / ".artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
