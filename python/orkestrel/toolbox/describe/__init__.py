"""The describe tool: expands a tool's lean summary into its full instructions on demand."""

from orkestrel.toolbox.describe.constants import (
    DESCRIBE_TOOL_DESCRIPTION,
    DESCRIBE_TOOL_NAME,
    DESCRIBE_TOOL_SUMMARY,
)
from orkestrel.toolbox.describe.factories import create_describe_tool
from orkestrel.toolbox.describe.shapes import describe_tool_shape
from orkestrel.toolbox.describe.types import DescribeToolArguments

__all__ = [
    "DESCRIBE_TOOL_DESCRIPTION",
    "DESCRIBE_TOOL_NAME",
    "DESCRIBE_TOOL_SUMMARY",
    "DescribeToolArguments",
    "create_describe_tool",
    "describe_tool_shape",
]
