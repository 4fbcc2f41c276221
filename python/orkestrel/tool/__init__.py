"""The tool runtime: `Tool`, the `ToolManager` registry, and the call and result records."""

from orkestrel.tool.base import Tool
from orkestrel.tool.factories import create_tool, create_tool_manager
from orkestrel.tool.helpers import tool_to_definition
from orkestrel.tool.manager import ToolManager
from orkestrel.tool.types import (
    ToolCall,
    ToolDefinition,
    ToolFailure,
    ToolHandler,
    ToolInterface,
    ToolManagerInterface,
    ToolOptions,
    ToolResult,
    ToolSuccess,
)
from orkestrel.tool.validators import is_tool_call

__all__ = [
    "Tool",
    "ToolCall",
    "ToolDefinition",
    "ToolFailure",
    "ToolHandler",
    "ToolInterface",
    "ToolManager",
    "ToolManagerInterface",
    "ToolOptions",
    "ToolResult",
    "ToolSuccess",
    "create_tool",
    "create_tool_manager",
    "is_tool_call",
    "tool_to_definition",
]
