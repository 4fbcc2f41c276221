"""Ready-made tools for a `ToolManager`, each advertising a schema compiled from a contract."""

from orkestrel.toolbox.describe import (
    DESCRIBE_TOOL_DESCRIPTION,
    DESCRIBE_TOOL_NAME,
    DESCRIBE_TOOL_SUMMARY,
    DescribeToolArguments,
    create_describe_tool,
    describe_tool_shape,
)
from orkestrel.toolbox.errors import (
    TOOLBOX_ERROR_CODES,
    ToolboxError,
    ToolboxErrorCode,
    is_toolbox_error,
)
from orkestrel.toolbox.inference import (
    INFER_TOOL_DESCRIPTION,
    INFER_TOOL_NAME,
    INFER_TOOL_SUMMARY,
    EndpointDefinition,
    EndpointHandler,
    EndpointToolOptions,
    InferCheck,
    InferToolOptions,
    create_endpoint_tool,
    create_infer_tool,
    infer_tool_shape,
)

__all__ = [
    "DESCRIBE_TOOL_DESCRIPTION",
    "DESCRIBE_TOOL_NAME",
    "DESCRIBE_TOOL_SUMMARY",
    "INFER_TOOL_DESCRIPTION",
    "INFER_TOOL_NAME",
    "INFER_TOOL_SUMMARY",
    "TOOLBOX_ERROR_CODES",
    "DescribeToolArguments",
    "EndpointDefinition",
    "EndpointHandler",
    "EndpointToolOptions",
    "InferCheck",
    "InferToolOptions",
    "ToolboxError",
    "ToolboxErrorCode",
    "create_describe_tool",
    "create_endpoint_tool",
    "create_infer_tool",
    "describe_tool_shape",
    "infer_tool_shape",
    "is_toolbox_error",
]
