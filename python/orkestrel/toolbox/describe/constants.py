"""Names and teaching texts of the describe tool."""

from typing import Final

DESCRIBE_TOOL_NAME: Final = "describe"
"""Holds the name `create_describe_tool` advertises, `'describe'`."""

DESCRIBE_TOOL_SUMMARY: Final = (
    "describe('<tool>', operation?): a tool's guide, or one operation's exact schema and example."
)
"""Holds the short summary `create_describe_tool` advertises: this tool needs no teaching of its
own."""

DESCRIBE_TOOL_DESCRIPTION: Final = """\
Show the full instructions of another tool.
Other tools list only a one-line summary; call this first when you need their fields or examples.
Input: {"name": "<tool name>"}, the exact name of a registered tool; add "operation" to ask
about one operation of an operation-keyed tool.
Output: that tool's full instructions as text; with an operation, that operation's exact JSON
Schema (which fields it requires) and an example call.
Example: in {"name": "infer"} -> out "Infer a JSON Schema from example values. ..."
Example: in {"name": "database", "operation": "get"} -> out "database get: Read rows by key. ..."
"""
"""Holds the description `create_describe_tool` advertises: the tool `name` it requires and the
full description it returns."""
