"""Run the ```python fences of a markdown file, asserting lines that end in `# -> <expr>`."""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
CLAIM = re.compile(r"^(?P<indent>\s*)(?P<expr>.+?)\s*# -> (?P<expected>.+)$")


def fences(text: str) -> list[str]:
    """Returns the bodies of the ```python fences of a markdown text, in order."""
    return [match.group(1) for match in FENCE.finditer(text)]


def section(text: str, heading: str) -> str:
    """Returns the part of a markdown text under `heading` (a `## ` line) up to the next one."""
    start = text.index(f"\n{heading}\n")
    rest = text[start + len(heading) + 2 :]
    end = re.search(r"^## ", rest, re.MULTILINE)
    return rest if end is None else rest[: end.start()]


def with_claims(source: str) -> str:
    """Rewrites `expr  # -> expected` lines into assertions that report both sides."""
    lines = []
    for line in source.splitlines():
        match = CLAIM.match(line)
        if match is None:
            lines.append(line)
            continue
        indent, expr, expected = match.group("indent", "expr", "expected")
        lines.append(f"{indent}__value = {expr}")
        lines.append(f"{indent}__expected = ({expected})")
        lines.append(f"{indent}assert __value == __expected, ({expr!r}, __value, __expected)")
    return "\n".join(lines) + "\n"


def run(source: str, name: str) -> dict[str, Any]:
    """Executes one fence in a fresh namespace with top-level `await`; returns the namespace."""
    code = compile(with_claims(source), name, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    namespace: dict[str, Any] = {"__name__": "__fence__"}
    result = eval(code, namespace)
    if asyncio.iscoroutine(result):
        asyncio.run(result)
    return namespace


def run_file(path: Path) -> int:
    """Runs every fence of a markdown file in order; returns how many ran."""
    bodies = fences(path.read_text(encoding="utf-8"))
    for index, body in enumerate(bodies):
        run(body, f"{path.name}[{index}]")
    return len(bodies)
