"""`read_window`: the lines of a file one `read` answers, cut to the tool's caps."""

from __future__ import annotations


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
