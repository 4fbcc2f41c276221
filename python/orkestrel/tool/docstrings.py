"""Reading a function's docstring: its summary, its prose, and one description per argument.

Three layouts are understood, chosen per docstring:

- Google: an `Args:` (or `Arguments:`, `Parameters:`, `Params:`, `Keyword Args:`, `Keyword
  Arguments:`, `Other Parameters:`) header, then `name (type): text` entries indented below it.
- NumPy: a `Parameters` (or `Other Parameters`) header underlined with dashes, then `name : type`
  lines with the text indented below each.
- Sphinx: `:param name: text` or `:param type name: text` fields (also `:arg`, `:argument`,
  `:parameter`, `:key`, `:keyword`); `:type name:` fields are dropped.

The parameter sections are taken out of the prose; every other section (`Returns:`, `Raises:`,
`Examples`…) stays in the description so nothing the author wrote is lost.
"""

from __future__ import annotations

import inspect
import re
from typing import NamedTuple

_GOOGLE_HEADERS = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "other parameters",
    }
)
_NUMPY_HEADERS = frozenset({"parameters", "other parameters"})
_GOOGLE_HEADER = re.compile(r"^(?P<indent>\s*)(?P<title>[A-Za-z][A-Za-z ]*[A-Za-z]):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\**(?P<name>[A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(?P<text>.*)$")
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\**(?P<names>[A-Za-z_]\w*(?:\s*,\s*\**[A-Za-z_]\w*)*)\s*(?::.*)?$")
_SPHINX_FIELD = re.compile(r"^\s*:(?P<field>[^:]+):(?P<text>.*)$")
_SPHINX_PARAMS = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_SPHINX_TYPES = frozenset({"type", "vartype", "kwtype"})


class Docstring(NamedTuple):
    """What a docstring says: its summary, its prose without argument sections, and arguments."""

    summary: str | None
    """The first paragraph on one line, or `None` when there is no docstring."""
    description: str | None
    """The whole docstring minus its parameter sections, or `None` when that leaves nothing."""
    arguments: dict[str, str]
    """One description per documented argument, continuation lines joined with spaces."""


def parse_docstring(text: str | None) -> Docstring:
    """Splits a docstring into its summary, its description and its per-argument descriptions.

    The layout (Google, NumPy or Sphinx) is detected from the text itself; a docstring with no
    parameter section gives an empty `arguments` mapping.
    """
    if not text or not text.strip():
        return Docstring(None, None, {})
    lines = inspect.cleandoc(text).splitlines()
    kept, arguments = _sphinx(lines)
    kept, found = _numpy(kept)
    arguments.update(found)
    kept, found = _google(kept)
    arguments.update(found)
    description = "\n".join(kept).strip()
    description = re.sub(r"\n{3,}", "\n\n", description)
    return Docstring(_summary(description), description or None, arguments)


def _summary(description: str) -> str | None:
    paragraph = description.split("\n\n", 1)[0]
    joined = " ".join(line.strip() for line in paragraph.splitlines() if line.strip())
    return joined or None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(part.strip() for part in parts if part.strip())


def _google(lines: list[str]) -> tuple[list[str], dict[str, str]]:
    kept: list[str] = []
    arguments: dict[str, str] = {}
    index = 0
    while index < len(lines):
        header = _GOOGLE_HEADER.match(lines[index])
        if header is None or header["title"].lower() not in _GOOGLE_HEADERS:
            kept.append(lines[index])
            index += 1
            continue
        base = len(header["indent"])
        index += 1
        entry: str | None = None
        entry_indent = -1
        parts: list[str] = []
        while index < len(lines):
            line = lines[index]
            if line.strip() and _indent(line) <= base:
                break
            index += 1
            if not line.strip():
                continue
            matched = _GOOGLE_ENTRY.match(line.strip())
            if matched is not None and (entry is None or _indent(line) <= entry_indent):
                if entry is not None:
                    arguments[entry] = _join(parts)
                entry, entry_indent, parts = matched["name"], _indent(line), [matched["text"]]
            elif entry is not None:
                parts.append(line)
        if entry is not None:
            arguments[entry] = _join(parts)
    return kept, arguments


def _numpy(lines: list[str]) -> tuple[list[str], dict[str, str]]:
    kept: list[str] = []
    arguments: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        ruled = index + 1 < len(lines) and _NUMPY_RULE.match(lines[index + 1]) is not None
        if not ruled or line.strip().lower() not in _NUMPY_HEADERS:
            kept.append(line)
            index += 1
            continue
        base = _indent(line)
        index += 2
        names: list[str] = []
        parts: list[str] = []
        while index < len(lines):
            line = lines[index]
            following_rule = index + 1 < len(lines) and _NUMPY_RULE.match(lines[index + 1])
            if line.strip() and _indent(line) <= base and following_rule:
                break
            index += 1
            if not line.strip():
                continue
            matched = _NUMPY_ENTRY.match(line.strip()) if _indent(line) <= base else None
            if matched is not None:
                for name in names:
                    arguments[name] = _join(parts)
                names = [part.strip().lstrip("*") for part in matched["names"].split(",")]
                parts = []
            elif names:
                parts.append(line)
        for name in names:
            arguments[name] = _join(parts)
    return kept, arguments


def _sphinx(lines: list[str]) -> tuple[list[str], dict[str, str]]:
    kept: list[str] = []
    arguments: dict[str, str] = {}
    index = 0
    while index < len(lines):
        field = _SPHINX_FIELD.match(lines[index])
        words = field["field"].split() if field is not None else []
        if field is None or not words or words[0] not in _SPHINX_PARAMS | _SPHINX_TYPES:
            kept.append(lines[index])
            index += 1
            continue
        base = _indent(lines[index])
        parts = [field["text"]]
        index += 1
        while index < len(lines) and lines[index].strip() and _indent(lines[index]) > base:
            parts.append(lines[index])
            index += 1
        if words[0] in _SPHINX_PARAMS and len(words) >= 2:
            arguments[words[-1].lstrip("*")] = _join(parts)
    return kept, arguments
