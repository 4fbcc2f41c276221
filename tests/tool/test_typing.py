"""The README's idioms type-check under mypy --strict and pyright strict, on a user's script
(`tests/typing/user_results.py`) checked against the orkestrel under test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import orkestrel
from conftest import ROOT

SCRIPT = ROOT / "tests" / "typing" / "user_results.py"
REQUIRED = os.environ.get("ORKESTREL_REQUIRE_INSTALLED") == "1"


def _checker(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        if REQUIRED:
            pytest.fail(f"{name} is not installed (the test extra brings it)")
        pytest.skip(f"{name} is not installed (the test extra brings it)")
    return found


def _search_paths() -> list[str]:
    """Where the checkers find this orkestrel: nothing extra for an installed wheel (both find
    site-packages, and mypy refuses it on MYPYPATH), the source tree otherwise."""
    package = Path(orkestrel.__file__).resolve().parent.parent
    installed = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    return [] if package in installed else [str(package)]


def _mypy_environment() -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if key != "MYPYPATH"}
    paths = _search_paths()
    return {**environment, "MYPYPATH": os.pathsep.join(paths)} if paths else environment


def _project(tmp_path: Path) -> Path:
    """A copy of the script beside a strict pyright configuration that finds this orkestrel."""
    shutil.copy(SCRIPT, tmp_path / SCRIPT.name)
    config = {
        "include": [SCRIPT.name],
        "typeCheckingMode": "strict",
        "pythonVersion": "3.11",
        "extraPaths": _search_paths(),
    }
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return tmp_path


def test_the_readme_result_idiom_is_the_one_checked() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    idiom = 'result["value"] if result["success"] is True else result["error"]'
    assert idiom in readme
    assert idiom in SCRIPT.read_text(encoding="utf-8")
    assert 'if result["success"] else' not in readme


def test_pyright_strict_accepts_the_user_script(tmp_path: Path) -> None:
    project = _project(tmp_path)
    done = subprocess.run(
        [_checker("pyright"), "-p", str(project / "pyrightconfig.json")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=project,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_accepts_the_user_script(tmp_path: Path) -> None:
    project = _project(tmp_path)
    done = subprocess.run(
        [_checker("mypy"), "--strict", "--no-incremental", SCRIPT.name],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=project,
        env=_mypy_environment(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
