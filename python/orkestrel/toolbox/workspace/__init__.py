"""The workspace tool: file editing for agents over a workspace manager, in one tool."""

from orkestrel.toolbox.workspace.constants import (
    WORKSPACE_READ_CHARS,
    WORKSPACE_READ_LINES,
    WORKSPACE_SEARCH_MATCHES,
    WORKSPACE_TOOL_DESCRIPTION,
    WORKSPACE_TOOL_EXAMPLE,
    WORKSPACE_TOOL_NAME,
    WORKSPACE_TOOL_SUMMARY,
)
from orkestrel.toolbox.workspace.factories import create_workspace_tool
from orkestrel.toolbox.workspace.shapes import workspace_tool_shape
from orkestrel.toolbox.workspace.types import WorkspaceOperation, WorkspaceToolOptions

__all__ = [
    "WORKSPACE_READ_CHARS",
    "WORKSPACE_READ_LINES",
    "WORKSPACE_SEARCH_MATCHES",
    "WORKSPACE_TOOL_DESCRIPTION",
    "WORKSPACE_TOOL_EXAMPLE",
    "WORKSPACE_TOOL_NAME",
    "WORKSPACE_TOOL_SUMMARY",
    "WorkspaceOperation",
    "WorkspaceToolOptions",
    "create_workspace_tool",
    "workspace_tool_shape",
]
