"""The advertised-definition projection, and the flattening of handler failures."""

from __future__ import annotations

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


def error_message(error: BaseException) -> str:
    """Turns a handler's exception into the message a failure result carries.

    An exception whose text cannot be produced becomes `Unknown thrown value`.
    """
    try:
        message = str(error)
    except Exception:
        return UNKNOWN_THROWN_VALUE
    return message if type(message) is str else UNKNOWN_THROWN_VALUE
