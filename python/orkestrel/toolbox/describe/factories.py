"""The describe tool factory."""

from __future__ import annotations

from typing import Any

from orkestrel.contract import create_contract
from orkestrel.tool import Tool, ToolManagerInterface
from orkestrel.toolbox.describe.constants import (
    DESCRIBE_TOOL_DESCRIPTION,
    DESCRIBE_TOOL_NAME,
    DESCRIBE_TOOL_SUMMARY,
)
from orkestrel.toolbox.describe.helpers import operation_text
from orkestrel.toolbox.describe.shapes import describe_tool_shape
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import contract_parameters, parse_arguments
from orkestrel.toolbox.hints import READS

NO_DESCRIPTION = "<no description>"


def create_describe_tool(tools: ToolManagerInterface) -> Tool:
    """Builds an LLM-callable tool that returns the full `description` of another registered
    tool by name: the counterpart to the lean `summary` the other tools advertise. With an
    `operation`, it answers for that one operation of an `operation`-keyed tool (one with
    `operations`): its exact call schema and an example call.

    The tool reads `tools` at call time, so it describes tools added after it, itself included.
    """
    contract = create_contract(describe_tool_shape)

    async def describe(args: Any) -> str:
        call = parse_arguments(contract, args, "malformed describe call")
        name = call["name"]
        tool = tools.tool(name)
        if tool is None:
            raise ToolboxError("TOOL", f"unknown tool '{name}'", {"name": name})
        operation = call.get("operation")
        if operation is not None:
            return _operation(tool, name, operation)
        if tool.description is not None:
            return tool.description
        return tool.summary if tool.summary is not None else NO_DESCRIPTION

    return Tool(
        name=DESCRIBE_TOOL_NAME,
        description=DESCRIBE_TOOL_DESCRIPTION,
        summary=DESCRIBE_TOOL_SUMMARY,
        parameters=contract_parameters(contract),
        annotations={**READS, "title": "Describe a tool"},
        execute=describe,
    )


def _operation(tool: Any, name: str, operation: str) -> str:
    operations = getattr(tool, "operations", None)
    if not isinstance(operations, dict) or not operations:
        raise ToolboxError(
            "TOOL", f"tool '{name}' has no operations; call describe('{name}')", {"name": name}
        )
    schema = operations.get(operation)
    if not isinstance(schema, dict):
        raise ToolboxError(
            "TOOL",
            f"tool '{name}' has no operation '{operation}'; it has " + ", ".join(operations),
            {"name": name, "operation": operation},
        )
    return operation_text(name, operation, schema)
