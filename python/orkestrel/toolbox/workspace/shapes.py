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


def _path(what: str | None = None) -> ContractShape:
    return string_shape() if what is None else string_shape(description=what)


def _content(what: str | None = None) -> ContractShape:
    return string_shape() if what is None else string_shape(description=what)


def _position(what: str | None = None) -> ContractShape:
    return integer_shape(min=1) if what is None else integer_shape(min=1, description=what)


def _matching() -> dict[str, ContractShape]:
    return {
        "regex": optional_shape(boolean_shape()),
        "sensitive": optional_shape(boolean_shape(description="Default true.")),
        "limit": optional_shape(integer_shape(min=1)),
    }


_QUERY = string_shape()

workspace_tool_shape: UnionShape = union_shape(
    _operation(
        "read",
        "Read one file's text, a window of its lines.",
        path=_path(),
        offset=optional_shape(integer_shape(min=1, description="First line.")),
        limit=optional_shape(
            integer_shape(
                min=1,
                description=f"Most lines (default and most {WORKSPACE_READ_LINES}).",
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
        replacement=_content("Inserted as is."),
        **_matching(),
    ),
    _operation(
        "write",
        "Create or overwrite a file.",
        path=_path(),
        content=_content(),
    ),
    _operation(
        "splice",
        "Replace a span of a text file.",
        path=_path("The path of an existing text file."),
        content=_content("The text put in place of the span; empty deletes it."),
        fromLine=_position(),
        fromColumn=_position("In characters."),
        toLine=_position(),
        toColumn=_position("Exclusive."),
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
        **{"from": _path(), "to": _path()},
    ),
    _operation("remove", "Delete a file.", path=_path()),
    _operation("workspaces", "List the open workspaces."),
    _operation(
        "switch",
        "Make another workspace active.",
        id=string_shape(),
    ),
)
"""Describes one workspace operation: a union of thirteen closed objects, each led by its
`operation` literal and carrying its own described fields.
"""
