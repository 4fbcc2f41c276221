"""Workspace search and replace over a 50 MB workspace, against Python's `re` doing the same work.

Run with a release build: `maturin develop --release`, then
`pytest benches/bench_workspace.py -c benches/pytest.ini`.

The `re` side is the fastest plain-Python equivalent: one `finditer` per file over the whole text
in multi-line mode, with line numbers and columns counted incrementally, producing the same
`(path, line, column, length, content)` records as plain tuples, the cheapest Python record (the
patterns here never match a line break).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from orkestrel.workspace import SearchMatch, Workspace

FILES = 500
LINES = 2_600


def body(index: int) -> str:
    lines = []
    for number in range(LINES):
        if number % 997 == 0:
            lines.append(f"    needle_{index}_{number} = compute(alpha, beta)  # café 😀")
        elif number % 13 == 0:
            lines.append(f"def handler_{number}(request, *, timeout=30):  # naïve")
        else:
            lines.append(f"    value_{number} = transform(value_{number - 1}, factor={number % 7})")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    space = Workspace("bench")
    space.write({f"src/module_{index}.py": body(index) for index in range(FILES)})
    total = sum(file.size for file in space.files())
    assert total > 50_000_000, total
    return space


Record = tuple[str, int, int, int, str]


def python_search(space: Workspace, pattern: str, flags: int = 0) -> list[Record]:
    compiled = re.compile(pattern, flags | re.MULTILINE)
    found: list[Record] = []
    for file in space.files():
        text = space.read(file.path)
        if text is None:
            continue
        line, line_start, cursor = 1, 0, 0
        for match in compiled.finditer(text):
            start = match.start()
            breaks = text.count("\n", cursor, start)
            if breaks:
                line += breaks
                line_start = text.rfind("\n", cursor, start) + 1
            cursor = start
            end = text.find("\n", start)
            content = text[line_start : len(text) if end == -1 else end]
            found.append((file.path, line, start - line_start + 1, match.end() - start, content))
    return found


def records(found: list[SearchMatch]) -> list[Record]:
    return [(m.path, m.line, m.column, m.length, m.content) for m in found]


def python_replace(space: Workspace, pattern: str, replacement: str) -> int:
    compiled = re.compile(pattern, re.MULTILINE)
    total = 0
    for file in space.files():
        text = space.read(file.path)
        if text is not None:
            _, count = compiled.subn(lambda _: replacement, text)
            total += count
    return total


CASES: dict[str, tuple[str, bool, bool]] = {
    "literal, rare": ("needle_42_", False, True),
    "literal, common": ("transform(", False, True),
    "literal, folded case": ("NEEDLE_42_", False, False),
    "regex, word": (r"\bhandler_\d+\(", True, True),
    "regex, no hit": (r"timeout=\d{5}", True, True),
}


def run(benchmark: Callable[..., object], fn: Callable[[], object]) -> object:
    return benchmark.pedantic(fn, rounds=5, iterations=1, warmup_rounds=1)  # type: ignore[attr-defined]


@pytest.mark.parametrize("case", list(CASES))
def bench_search_orkestrel(
    benchmark: Callable[..., object], workspace: Workspace, case: str
) -> None:
    query, regex, sensitive = CASES[case]
    found = run(benchmark, lambda: workspace.search(query, regex=regex, sensitive=sensitive))
    flags = 0 if sensitive else re.IGNORECASE
    pattern = query if regex else re.escape(query)
    assert records(found) == python_search(workspace, pattern, flags)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", list(CASES))
def bench_search_python_re(
    benchmark: Callable[..., object], workspace: Workspace, case: str
) -> None:
    query, regex, sensitive = CASES[case]
    flags = 0 if sensitive else re.IGNORECASE
    pattern = query if regex else re.escape(query)
    run(benchmark, lambda: python_search(workspace, pattern, flags))


def bench_replace_orkestrel(benchmark: Callable[..., object], workspace: Workspace) -> None:
    def replace() -> int:
        copy = Workspace("copy", workspace.files())
        return copy.replace("transform(", "convert(").occurrences

    count = run(benchmark, replace)
    assert count == python_replace(workspace, re.escape("transform("), "convert(")


def bench_replace_python_re(benchmark: Callable[..., object], workspace: Workspace) -> None:
    run(benchmark, lambda: python_replace(workspace, re.escape("transform("), "convert("))


def bench_nested_quantifier_orkestrel(benchmark: Callable[..., object]) -> None:
    space = Workspace("redos")
    space.write("a.txt", "a" * 100_000 + "!")
    assert run(benchmark, lambda: space.search("(a+)+$", regex=True)) == []


def bench_nested_quantifier_python_re(benchmark: Callable[..., object]) -> None:
    text = "a" * 22 + "!"
    compiled = re.compile("(a+)+$")
    assert run(benchmark, lambda: compiled.search(text)) is None
