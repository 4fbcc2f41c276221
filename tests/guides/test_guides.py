"""The guides in docs/guides are an enforced contract: surface, methods, summaries and patterns."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from conftest import ROOT
from support.docstrings import first_paragraph, public_methods, summary
from support.fences import fences, run
from support.markdown import code_name, normalize, sections, tables, tagline

GUIDES = ROOT / "docs" / "guides"
PAGES = sorted(path for path in GUIDES.glob("*.md") if path.name != "README.md")


def modules_of(text: str) -> list[ModuleType]:
    line = re.search(r"^Modules?: (.+)$", text, re.MULTILINE)
    assert line is not None, "a guide names its modules on a `Modules:` line"
    return [importlib.import_module(name) for name in re.findall(r"`([^`]+)`", line.group(1))]


def surface(text: str) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for table in tables(sections(text, 2).get("Surface", "")):
        rows.extend(row for row in table if "API" in row)
    return rows


def owner(mods: list[ModuleType], name: str) -> ModuleType:
    for module in mods:
        if name in module.__all__:
            return module
    raise AssertionError(f"{name} is not exported by {[m.__name__ for m in mods]}")


@pytest.fixture(params=PAGES, ids=[page.stem for page in PAGES])
def page(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


def test_there_are_guides() -> None:
    assert {page.stem for page in PAGES} >= {"tool", "timeout"}


def test_surface_and_exports_are_a_bijection(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    documented = [code_name(row["API"]) for row in surface(text)]
    exported = [name for module in modules_of(text) for name in module.__all__]
    assert len(documented) == len(set(documented)), "a name appears twice in the Surface tables"
    assert sorted(documented) == sorted(exported)


def test_every_summary_is_the_docstring(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    mods = modules_of(text)
    for row in surface(text):
        name = code_name(row["API"])
        assert normalize(row["Summary"]) == summary(owner(mods, name), name), name


def test_every_class_has_a_complete_methods_table(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    mods = modules_of(text)
    listed = {
        code_name(heading): tables(body)
        for heading, body in sections(sections(text, 2).get("Methods", ""), 4).items()
    }
    for row in surface(text):
        if not row["Kind"].startswith("class"):
            continue
        name = code_name(row["API"])
        methods = public_methods(getattr(owner(mods, name), name))
        rows = [item for table in listed.get(name, []) for item in table]
        assert sorted(code_name(item["Method"]) for item in rows) == sorted(methods), name
        for item in rows:
            method = methods[code_name(item["Method"])]
            assert normalize(item["Summary"]) == first_paragraph(inspect.getdoc(method)), method


def test_patterns_run(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    bodies = fences(sections(text, 2).get("Patterns", ""))
    assert bodies, "a guide has at least one runnable pattern"
    for index, body in enumerate(bodies):
        run(body, f"{page.name}#pattern{index}")


def test_tests_section_names_real_files(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    named = re.findall(r"`(tests/[^`]+)`", sections(text, 2).get("Tests", ""))
    assert named, "a guide names the tests that cover it"
    for path in named:
        assert (ROOT / path).exists(), path


def test_readme_and_index_share_the_tagline() -> None:
    readme = tagline((ROOT / "README.md").read_text(encoding="utf-8"))
    assert readme
    assert readme == tagline((GUIDES / "README.md").read_text(encoding="utf-8"))


def test_a_comment_in_a_fence_does_not_end_a_section() -> None:
    text = (
        "## Patterns\n\n```python\n# a comment\nx = 1\n```\n\n```python\ny = 2\n```\n\n## Tests\n"
    )
    assert fences(sections(text, 2)["Patterns"]) == ["# a comment\nx = 1\n", "y = 2\n"]
    assert list(sections(text, 1)) == []
