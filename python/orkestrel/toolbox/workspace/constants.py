"""The name, example and teaching texts the workspace tool advertises."""

from __future__ import annotations

import json
from typing import Final

from orkestrel.toolbox.readonly import read_only

WORKSPACE_TOOL_NAME = "workspace"
"""Holds the name `create_workspace_tool` advertises by default, `'workspace'`."""

WORKSPACE_READ_LINES: Final = 2_000
"""Holds the default cap on the lines one `read` answers (`create_workspace_tool(read_lines=)`)."""

WORKSPACE_READ_CHARS: Final = 262_144
"""Holds the default cap on the characters one `read` answers
(`create_workspace_tool(read_chars=)`)."""

WORKSPACE_SEARCH_MATCHES: Final = 200
"""Holds the default cap on the matches one `search` answers
(`create_workspace_tool(search_matches=)`); its lines are held to `WORKSPACE_READ_CHARS`."""

WORKSPACE_TOOL_EXAMPLE: dict[str, str] = read_only(
    {"operation": "write", "path": "notes.txt", "content": "hello"}
)
"""Holds a valid workspace operation, the example embedded verbatim in the description."""

WORKSPACE_TOOL_OPERATIONS: tuple[str, ...] = (
    "read",
    "list",
    "has",
    "search",
    "replace",
    "write",
    "splice",
    "prepend",
    "append",
    "move",
    "remove",
    "workspaces",
    "switch",
)
"""Lists the thirteen operation names, in the order the tool's union declares them."""

WORKSPACE_TOOL_SUMMARY = "Workspace files. See describe('workspace')."
"""Holds the one-sentence summary the workspace tool advertises in place of its description."""

_EXAMPLE = json.dumps(WORKSPACE_TOOL_EXAMPLE, separators=(",", ":"))


def workspace_description(
    read_lines: int = WORKSPACE_READ_LINES,
    read_chars: int = WORKSPACE_READ_CHARS,
    search_matches: int = WORKSPACE_SEARCH_MATCHES,
) -> str:
    """The workspace tool's teaching text, naming the caps one `read` and one `search` answer
    under (`create_workspace_tool(read_lines=, read_chars=, search_matches=)`)."""
    return f"""Work on the files of the active workspace. Each call is one JSON \
object: its "operation" field names the action, the other fields belong to that action.

Look:
- read {{path, offset?, limit?}}: the file's text from line offset (default 1), at most limit \
lines (default and most {read_lines}, and at most {read_chars} characters); \
null when the file is missing or is an image. A cut answer ends with a line of its own, \
[truncated: showed lines A-B of N; read on with offset B+1]: call read again with that offset \
for the rest.
- list {{}}: every file as {{path, state, size, lines, kind}}; kind is "text" or "binary".
- has {{path}}: true when the file exists.
- search {{query, regex?, sensitive?, limit?}}: matches, file by file then line by line, as \
{{path, line, column, length, content}}; content is the whole line. At most \
{search_matches} matches and {read_chars} characters of lines are answered; \
past that the answer is {{matches, truncated: true, note}}: narrow the query for the rest.

Change (the first change creates a workspace when none is active):
- write {{path, content}}: create the file or replace all of its text.
- splice {{path, content, fromLine, fromColumn, toLine, toColumn}}: replace the text from the \
first position up to, but not including, the second. Lines and columns start at 1; a column \
counts characters; positions past the end are pulled back to it. The file must exist.
- prepend {{path, content}} / append {{path, content}}: add text at the start / end; a missing \
file counts as empty.
- replace {{query, replacement, regex?, sensitive?, limit?}}: replace matches in every text file \
and get {{occurrences, files}}; the replacement is inserted as is.
- move {{from, to}}: rename a file (an existing target is overwritten); remove {{path}}.

Switch:
- workspaces {{}}: every workspace as {{id, files, active}}.
- switch {{id}}: make another workspace active.

query is plain text unless regex is true; sensitive: false ignores case; limit caps the matches. \
Regex search runs in linear time, so look-around and backreferences are refused. A search never \
matches across lines; ^ and $ mark line starts and ends. Images can be listed, moved and \
removed, not read or edited as text.

Example: {_EXAMPLE}"""


WORKSPACE_TOOL_DESCRIPTION = workspace_description()
"""Holds the full teaching text of the workspace tool: every operation, its fields and results."""
