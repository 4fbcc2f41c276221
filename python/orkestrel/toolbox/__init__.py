"""Ready-made tools for a `ToolManager`, each advertising a schema compiled from a contract."""

from orkestrel.toolbox.errors import (
    TOOLBOX_ERROR_CODES,
    ToolboxError,
    ToolboxErrorCode,
    is_toolbox_error,
)

__all__ = ["TOOLBOX_ERROR_CODES", "ToolboxError", "ToolboxErrorCode", "is_toolbox_error"]
