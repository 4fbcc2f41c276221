"""Ready-made tools for a `ToolManager`, each advertising a schema compiled from a contract."""

from orkestrel.toolbox.errors import (
    TOOLBOX_ERROR_CODES,
    ToolboxError,
    ToolboxErrorCode,
    is_toolbox_error,
)
from orkestrel.toolbox.workspace import (
    WORKSPACE_TOOL_DESCRIPTION,
    WORKSPACE_TOOL_EXAMPLE,
    WORKSPACE_TOOL_NAME,
    WORKSPACE_TOOL_SUMMARY,
    WorkspaceOperation,
    WorkspaceToolOptions,
    create_workspace_tool,
    workspace_tool_shape,
)

__all__ = [
    "TOOLBOX_ERROR_CODES",
    "WORKSPACE_TOOL_DESCRIPTION",
    "WORKSPACE_TOOL_EXAMPLE",
    "WORKSPACE_TOOL_NAME",
    "WORKSPACE_TOOL_SUMMARY",
    "ToolboxError",
    "ToolboxErrorCode",
    "WorkspaceOperation",
    "WorkspaceToolOptions",
    "create_workspace_tool",
    "is_toolbox_error",
    "workspace_tool_shape",
]
