"""`orkestrel.mcp` imports only with the `mcp` extra, and says how to get it otherwise."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import pytest

from orkestrel.mcp.requirements import require_sdk

HIDDEN = """
import sys
sys.modules["mcp"] = None
try:
    import orkestrel.mcp
except ImportError as error:
    print(error.name, error, sep="|")
else:
    print("imported")
"""


def test_without_the_sdk_the_import_error_names_the_extra() -> None:
    done = subprocess.run(
        [sys.executable, "-c", HIDDEN], capture_output=True, text=True, check=True, timeout=60
    )
    name, message = done.stdout.strip().split("|")
    assert name == "mcp"
    assert message == (
        "orkestrel.mcp needs the official MCP SDK (mcp>=1.30); "
        "install it with: pip install 'orkestrel[mcp]'"
    )


def test_the_rest_of_the_package_imports_without_the_sdk() -> None:
    code = 'import sys; sys.modules["mcp"] = None; import orkestrel.tool; print("ok")'
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("version", ["1.29.1", "1.2.0", "0.9", "dev"])
def test_an_old_sdk_is_refused_by_version(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    monkeypatch.setattr(metadata, "version", lambda name: version)
    with pytest.raises(ImportError, match=rf"needs mcp>=1.30, found mcp {version}; upgrade"):
        require_sdk()


@pytest.mark.parametrize("version", ["1.30.0", "1.31.2", "2.0.0", "2.3.0", "3.0.0rc1"])
def test_both_sdk_lines_are_accepted(monkeypatch: pytest.MonkeyPatch, version: str) -> None:
    monkeypatch.setattr(metadata, "version", lambda name: version)
    require_sdk()


def test_the_installed_sdk_passes() -> None:
    require_sdk()
