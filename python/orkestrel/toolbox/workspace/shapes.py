"""`workspace_tool_shape`: the operation-keyed union the workspace tool advertises."""

from __future__ import annotations

from orkestrel.contract import (
    ContractShape,
    UnionShape,
    boolean_shape,
    integer_shape,
    literal_shape,
    object_shape,
    optional_shape,
    string_shape,
    union_shape,
)
from orkestrel.toolbox.workspace.constants import WORKSPACE_READ_LINES


def _operation(name: str, what: str, **fields: ContractShape) -> ContractShape:
    tag = literal_shape([name], description=what)
    return object_shape({"operation": tag, **fields})


def _path(what: str = "The file's path in the workspace, such as src/main.py.") -> ContractShape:
    return string_shape(description=what)


def _content(what: str) -> ContractShape:
    return string_shape(description=what)


def _position(what: str) -> ContractShape:
    return integer_shape(min=1, description=what)


def _matching() -> dict[str, ContractShape]:
    return {
        "regex": optional_shape(
            boolean_shape(description="Read query as a regular expression (default: plain text).")
        ),
        "sensitive": optional_shape(
            boolean_shape(description="Match case exactly (default true); false ignores case.")
        ),
        "limit": optional_shape(
            integer_shape(min=1, description="The most matches to find or replace, in total.")
        ),
    }


_QUERY = string_shape(description="The text, or with regex the pattern, to look for.")

workspace_tool_shape: UnionShape = union_shape(
    _operation(
        "read",
        "Read one file's text, a window of its lines.",
        path=_path(),
        offset=optional_shape(
            integer_shape(min=1, description="The first line to read, from 1 (default 1).")
        ),
        limit=optional_shape(
            integer_shape(
                min=1,
                description=f"The most lines to read (default and most {WORKSPACE_READ_LINES}).",
            )
        ),
    ),
    _operation("list", "List the files."),
    _operation("has", "Tell whether a file exists.", path=_path()),
    _operation("search", "Find matches in every file.", query=_QUERY, **_matching()),
    _operation(
        "replace",
        "Replace matches in every file.",
        query=_QUERY,
        replacement=_content("The text put in place of each match, inserted as is."),
        **_matching(),
    ),
    _operation(
        "write",
        "Create or overwrite a file.",
        path=_path(),
        content=_content("The file's whole new text."),
    ),
    _operation(
        "splice",
        "Replace a span of a text file.",
        path=_path("The path of an existing text file."),
        content=_content("The text put in place of the span; empty deletes it."),
        fromLine=_position("The line where the span starts, from 1."),
        fromColumn=_position("The column where the span starts, from 1, in characters."),
        toLine=_position("The line where the span ends."),
        toColumn=_position("The column just past the span's last character."),
    ),
    _operation(
        "prepend",
        "Add text at a file's start.",
        path=_path(),
        content=_content("The text to put before the file's text."),
    ),
    _operation(
        "append",
        "Add text at a file's end.",
        path=_path(),
        content=_content("The text to put after the file's text."),
    ),
    _operation(
        "move",
        "Rename a file.",
        **{"from": _path("The file's current path."), "to": _path("The file's new path.")},
    ),
    _operation("remove", "Delete a file.", path=_path("The path of the file to delete.")),
    _operation("workspaces", "List the open workspaces."),
    _operation(
        "switch",
        "Make another workspace active.",
        id=string_shape(description="The id of the workspace to make active."),
    ),
)
"""Describes one workspace operation: a union of thirteen closed objects, each led by its
`operation` literal and carrying its own described fields.
"""
