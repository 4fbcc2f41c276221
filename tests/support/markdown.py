"""Read the pieces of a markdown guide that tests check: sections, tables and taglines."""

from __future__ import annotations

import re

HEADING = re.compile(r"^(#{1,6}) (.+)$", re.MULTILINE)


FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)


def sections(text: str, level: int) -> dict[str, str]:
    """Maps each heading of exactly `level` hashes to the text under it, up to the next such
    heading or a shallower one; a `#` line inside a code fence (a comment) is not a heading."""
    found: dict[str, str] = {}
    fenced = [match.span() for match in FENCE.finditer(text)]
    matches = [
        m
        for m in HEADING.finditer(text)
        if len(m.group(1)) <= level and not any(start < m.start() < end for start, end in fenced)
    ]
    for index, match in enumerate(matches):
        if len(match.group(1)) != level:
            continue
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        found[match.group(2).strip()] = text[match.end() : end]
    return found


def split_row(line: str) -> list[str]:
    """Splits one markdown table row into cells, honouring `\\|` escapes."""
    body = line.strip()[1:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return [cell.strip().replace("\\|", "|") for cell in cells]


def tables(text: str) -> list[list[dict[str, str]]]:
    """Returns every table of a markdown text as a list of rows keyed by the header cells."""
    found: list[list[dict[str, str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines) - 1:
        line, rule = lines[index], lines[index + 1]
        if line.lstrip().startswith("|") and re.match(r"^\s*\|[\s:|-]+\|\s*$", rule):
            header = split_row(line)
            rows: list[dict[str, str]] = []
            index += 2
            while index < len(lines) and lines[index].lstrip().startswith("|"):
                rows.append(dict(zip(header, split_row(lines[index]), strict=False)))
                index += 1
            found.append(rows)
            continue
        index += 1
    return found


def code_name(cell: str) -> str:
    """The bare name in a cell such as `` `create_tool` ``."""
    match = re.search(r"`([^`]+)`", cell)
    return (match.group(1) if match else cell).strip()


def tagline(text: str) -> str:
    """The first blockquote of a document, whitespace-normalized."""
    quote: list[str] = []
    for line in text.splitlines():
        if line.startswith(">"):
            quote.append(line.lstrip("> ").strip())
        elif quote:
            break
    return " ".join(" ".join(quote).split())


def normalize(text: str) -> str:
    """Collapses whitespace so wrapped prose compares equal to a one-line cell."""
    return " ".join(text.split())
