"""The package imports and reports the version of its native core."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import orkestrel
from orkestrel import _core

ROOT = Path(__file__).resolve().parent.parent


def test_version_comes_from_the_native_core() -> None:
    assert orkestrel.__version__ == _core.__version__
    assert orkestrel.__version__.count(".") == 2


def _built_versions() -> list[str]:
    script = (ROOT / "scripts" / "build-wheels").read_text()
    (line,) = [line for line in script.splitlines() if line.startswith("versions=")]
    return re.findall(r"3\.\d+t?", line)


def test_the_classifiers_name_every_version_a_wheel_is_built_for() -> None:
    classifiers = metadata.metadata("orkestrel").get_all("Classifier") or []
    declared = {
        c.removeprefix("Programming Language :: Python :: ")
        for c in classifiers
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    built = set(_built_versions())
    assert {v for v in built if not v.endswith("t")} == declared
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in declared
    # A free-threaded wheel (3.14t) is declared by a Free Threading classifier.
    threading = [c for c in classifiers if c.startswith("Programming Language :: Python :: Free")]
    assert bool(threading) == any(v.endswith("t") for v in built)


def test_requires_python_admits_the_oldest_built_version() -> None:
    required = metadata.metadata("orkestrel")["Requires-Python"]
    oldest = min(_built_versions(), key=lambda v: tuple(map(int, v.removesuffix("t").split("."))))
    assert required == f">={oldest.removesuffix('t')}"
