"""The tool runtime: `Tool`, the `ToolManager` registry, and the call and result records."""

from orkestrel.tool.base import Tool
from orkestrel.tool.context import Context, LogLevel, ToolContext
from orkestrel.tool.cost import DefinitionsCost, ToolCost, definitions_cost, estimate_tokens
from orkestrel.tool.decorator import FunctionTool, tool
from orkestrel.tool.errors import ArgumentFault, ArgumentsError, DocstringWarning, ExportError
from orkestrel.tool.export import (
    PORTABLE_NAME,
    PROVIDERS,
    ExportResult,
    Provider,
    export,
    portable_name,
)
from orkestrel.tool.factories import create_tool, create_tool_manager
from orkestrel.tool.flatten import flatten_parameters
from orkestrel.tool.helpers import tool_to_definition
from orkestrel.tool.manager import ToolManager
from orkestrel.tool.progress_pacer import PROGRESS_INTERVAL, ProgressPacer
from orkestrel.tool.schemas import ExportAction, ExportChange
from orkestrel.tool.signatures import Caller
from orkestrel.tool.threads import TOOL_THREAD_LIMIT, tool_thread_limiter
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
    "PORTABLE_NAME",
    "PROGRESS_INTERVAL",
    "PROVIDERS",
    "TOOL_THREAD_LIMIT",
    "ArgumentFault",
    "ArgumentsError",
    "Caller",
    "Context",
    "DefinitionsCost",
    "DocstringWarning",
    "ExportAction",
    "ExportChange",
    "ExportError",
    "ExportResult",
    "FunctionTool",
    "LogLevel",
    "ProgressPacer",
    "Provider",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolCost",
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
    "definitions_cost",
    "estimate_tokens",
    "export",
    "flatten_parameters",
    "is_tool_call",
    "portable_name",
    "tool",
    "tool_thread_limiter",
    "tool_to_definition",
]
