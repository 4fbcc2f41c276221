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
from orkestrel.toolbox.describe.shapes import describe_tool_shape
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.helpers import contract_parameters, parse_arguments
from orkestrel.toolbox.hints import READS

NO_DESCRIPTION = "<no description>"


def create_describe_tool(tools: ToolManagerInterface) -> Tool:
    """Builds an LLM-callable tool that returns the full `description` of another registered
    tool by name: the counterpart to the lean `summary` the other tools advertise.

    The tool reads `tools` at call time, so it describes tools added after it, itself included.
    """
    contract = create_contract(describe_tool_shape)

    async def describe(args: Any) -> str:
        name = parse_arguments(contract, args, "malformed describe call")["name"]
        tool = tools.tool(name)
        if tool is None:
            raise ToolboxError("TOOL", f"unknown tool '{name}'", {"name": name})
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
