"""scripts/import-cycles: finds import circles in a package, counting deferred imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "import-cycles"


def run(package: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(package)],
        capture_output=True,
        text=True,
        check=False,
    )


def write_package(tmp_path: Path, files: dict[str, str]) -> Path:
    package = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_a_circle_between_two_modules_is_found_with_its_import_lines(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {"a.py": "from pkg.b import thing\n", "b.py": "from . import a\nthing = 1\n"},
    )
    result = run(package)
    assert result.returncode == 1
    assert "circle 1: 2 modules" in result.stdout
    assert "pkg/a.py" in result.stdout
    assert "pkg/b.py" in result.stdout
    assert "line 1 -> pkg.b: from pkg.b import thing" in result.stdout
    assert "line 1 -> pkg.a: from . import a" in result.stdout


def test_an_import_under_type_checking_is_not_counted(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "a.py": "from pkg.b import thing\n",
            "b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg.a import x\n"
                "thing = 1\n"
            ),
            "c.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import pkg.d\n",
            "d.py": "import pkg.c\n",
        },
    )
    result = run(package)
    assert (result.returncode, result.stdout) == (0, "no import circles\n")


def test_the_else_branch_of_type_checking_is_counted(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "a.py": "import pkg.b\n",
            "b.py": "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    import pkg.a\n",
        },
    )
    assert run(package).returncode == 1


def test_an_import_deferred_into_a_function_is_counted(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "sub/__init__.py": "",
            "sub/a.py": "def late():\n    from ..b import thing\n    return thing\n",
            "b.py": "from pkg.sub.a import late\nthing = 1\n",
        },
    )
    result = run(package)
    assert result.returncode == 1
    assert "line 2 -> pkg.b: from ..b import thing" in result.stdout


def test_an_import_of_a_name_inside_a_module_counts_as_that_module(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {"a.py": "import pkg.b.thing\n", "b.py": "import pkg.a\nthing = 1\n"},
    )
    result = run(package)
    assert result.returncode == 1
    assert "line 1 -> pkg.b: import pkg.b.thing" in result.stdout


def test_an_init_reexporting_its_children_is_no_circle(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "__init__.py": "from pkg.a import one\nfrom pkg.b import two\n",
            "a.py": "from pkg.b import two\none = two\n",
            "b.py": "two = 2\n",
        },
    )
    result = run(package)
    assert (result.returncode, result.stdout) == (0, "no import circles\n")


def test_a_child_importing_from_its_parent_init_that_imports_it_is_a_circle(
    tmp_path: Path,
) -> None:
    package = write_package(
        tmp_path,
        {"__init__.py": "from pkg.a import one\nlimit = 3\n", "a.py": "from pkg import limit\n"},
    )
    result = run(package)
    assert result.returncode == 1
    assert "line 1 -> pkg: from pkg import limit" in result.stdout


def test_the_package_has_no_import_circles() -> None:
    result = run(ROOT / "python" / "orkestrel")
    assert (result.returncode, result.stdout) == (0, "no import circles\n"), result.stdout
