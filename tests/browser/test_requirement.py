"""Without a Chromium the browser tests skip and say why; `ORKESTREL_REQUIRE_BROWSER=1` (set by
`.ci/run`) makes a missing one an error instead."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

MISSING = "/nonexistent/chromium"


def run_page_tests(**env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"]
    command.append(str(ROOT / "tests" / "browser" / "test_page.py"))
    environment = {k: v for k, v in os.environ.items() if k != "ORKESTREL_REQUIRE_BROWSER"}
    environment.update(ORKESTREL_CHROMIUM=MISSING, **env)
    return subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("required", [False, True], ids=["optional", "required"])
def test_a_missing_chromium_skips_with_its_reason_unless_required(required: bool) -> None:
    done = run_page_tests(**({"ORKESTREL_REQUIRE_BROWSER": "1"} if required else {}))
    reason = f"no Chromium at {MISSING}: the answering page's browser tests need Debian's"
    assert reason in done.stdout
    if required:
        assert done.returncode == 1, done.stdout[-2000:]
        assert " error" in done.stdout
    else:
        assert done.returncode == 0, done.stdout[-2000:]
        assert "skipped" in done.stdout
        assert " error" not in done.stdout
