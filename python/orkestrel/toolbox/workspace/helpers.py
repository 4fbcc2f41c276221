"""`read_window` and `search_window`: what one `read` or `search` answers, cut to the tool's
caps."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from orkestrel.workspace import SearchMatch


def read_window(text: str, offset: int, limit: int, chars: int) -> str:
    """Answers the lines of `text` from line `offset` (from 1), at most `limit` of them and at
    most `chars` characters. A cut answer ends with a line of its own,
    `[truncated: showed lines A-B of N; read on with offset B+1]`; a first line longer than
    `chars` is cut at `chars` characters and the note says so. A whole answer has no note."""
    lines = text.splitlines(keepends=True)
    start = offset - 1
    shown: list[str] = []
    size = 0
    for line in lines[start : start + limit]:
        if size + len(line) > chars:
            if not shown:
                shown.append(line[:chars])
            break
        shown.append(line)
        size += len(line)
    end = start + len(shown)
    if end >= len(lines) and (not shown or len(shown[-1]) == len(lines[end - 1])):
        return "".join(shown)
    body = "".join(shown)
    separator = "" if body.endswith("\n") else "\n"
    cut = (
        "" if len(shown[-1]) == len(lines[end - 1]) else f" (line {end} cut at {chars} characters)"
    )
    return (
        f"{body}{separator}[truncated: showed lines {offset}-{end} of {len(lines)}{cut}; "
        f"read on with offset {end + 1}]"
    )


def search_window(found: Iterable[SearchMatch], limit: int, chars: int) -> Any:
    """Answers the first `limit` of `found` as `{path, line, column, length, content}` while
    their lines add up to at most `chars` characters (a first line longer than that is cut at
    it). Every match fitting, the answer is the list; cut, it is
    `{matches, truncated: true, note}`, the note saying how to find the rest."""
    matches: list[dict[str, Any]] = []
    size = 0
    cut = False
    for match in found:
        if len(matches) == limit or (matches and size + len(match.content) > chars):
            cut = True
            break
        content = match.content[:chars]
        cut = cut or len(content) < len(match.content)
        size += len(content)
        matches.append(
            {
                "path": match.path,
                "line": match.line,
                "column": match.column,
                "length": match.length,
                "content": content,
            }
        )
    if not cut:
        return matches
    note = (
        f"showed the first {len(matches)} matches ({size} characters of lines); there are "
        "more: narrow the query, or search fewer files"
    )
    return {"matches": matches, "truncated": True, "note": note}
