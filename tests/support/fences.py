"""Run the ```python fences of a markdown file, asserting lines that end in `# -> <expr>`."""

from __future__ import annotations

import ast
import asyncio
import io
import re
import tokenize
from pathlib import Path
from typing import Any

from support.markdown import sections

FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
CLAIM = "# -> "


def fences(text: str) -> list[str]:
    """Returns the bodies of the ```python fences of a markdown text, in order."""
    return [match.group(1) for match in FENCE.finditer(text)]


def pattern(guide: Path, title: str) -> str:
    """Returns the one ```python fence of a guide's `## Patterns` under `### title`."""
    (body,) = fences(sections(sections(guide.read_text(encoding="utf-8"), 2)["Patterns"], 3)[title])
    return body


def section(text: str, heading: str) -> str:
    """Returns the part of a markdown text under `heading` (a `## ` line) up to the next one."""
    start = text.index(f"\n{heading}\n")
    rest = text[start + len(heading) + 2 :]
    end = re.search(r"^## ", rest, re.MULTILINE)
    return rest if end is None else rest[: end.start()]


def _claims(source: str) -> dict[int, str]:
    found: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.string.startswith(CLAIM):
            found[token.start[0]] = token.string[len(CLAIM) :]
    return found


def _checked(statement: ast.stmt, source: str, expected: str) -> list[str]:
    indent = " " * statement.col_offset
    if isinstance(statement, ast.Expr):
        head = [f"{indent}__value = ({ast.get_source_segment(source, statement.value)})"]
        shown = ast.get_source_segment(source, statement.value)
    elif isinstance(statement, ast.Assign | ast.AnnAssign):
        target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        shown = ast.get_source_segment(source, target)
        head = [*(ast.get_source_segment(source, statement, padded=True) or "").splitlines()]
        head.append(f"{indent}__value = ({shown})")
    else:
        raise SyntaxError(
            f"a `# -> ` claim must follow an expression, not {type(statement).__name__}"
        )
    return [
        *head,
        f"{indent}__expected = ({expected})",
        f"{indent}assert __value == __expected, ({shown!r}, __value, __expected)",
    ]


def with_claims(source: str) -> str:
    """Rewrites statements whose last line ends in `# -> expected` into checked assertions."""
    claims = _claims(source)
    lines = source.splitlines()
    statements = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.stmt) and node.end_lineno in claims and not hasattr(node, "body")
    ]
    for statement in sorted(statements, key=lambda node: node.lineno, reverse=True):
        end = statement.end_lineno or statement.lineno
        lines[statement.lineno - 1 : end] = _checked(statement, source, claims[end])
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
