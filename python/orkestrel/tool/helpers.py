"""The advertised-definition projection, and the flattening of handler failures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel.tool.types import ToolDefinition, ToolInterface

UNKNOWN_THROWN_VALUE = "Unknown thrown value"


def tool_to_definition(tool: ToolInterface) -> ToolDefinition:
    """Projects a tool onto the plain definition advertised to a caller, advertising an authored
    `summary` in place of the full description and carrying the parameter schema by reference.
    """
    definition: ToolDefinition = {"name": tool.name}
    description = tool.summary if tool.summary is not None else tool.description
    if description is not None:
        definition["description"] = description
    if tool.parameters is not None:
        definition["parameters"] = tool.parameters
    return definition


def error_message(error: BaseException, args: Any = None) -> str:
    """Turns a handler's exception into the message a failure result carries: its text, or one
    useful line naming its type where the text alone says nothing.

    A `KeyError` for a key the call's `args` lack reads `KeyError: missing argument 'right'`,
    any other `KeyError` `KeyError: 'right'`, and an exception without text its type's name.
    An exception whose text cannot be produced becomes `Unknown thrown value`.
    """
    kind = type(error).__name__
    if isinstance(error, KeyError) and len(error.args) == 1:
        key = error.args[0]
        try:
            shown = repr(key)
            absent = isinstance(key, str) and isinstance(args, Mapping) and key not in args
        except Exception:
            return UNKNOWN_THROWN_VALUE
        return f"{kind}: missing argument {shown}" if absent else f"{kind}: {shown}"
    try:
        message = str(error)
    except Exception:
        return UNKNOWN_THROWN_VALUE
    if type(message) is not str:
        return UNKNOWN_THROWN_VALUE
    return message if message.strip() else kind
