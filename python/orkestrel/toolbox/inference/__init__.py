"""The inference tools: infer a schema from examples, or wrap an endpoint with an inferred one."""

from orkestrel.toolbox.inference.constants import (
    INFER_TOOL_DESCRIPTION,
    INFER_TOOL_NAME,
    INFER_TOOL_PROGRESS_SAMPLES,
    INFER_TOOL_SUMMARY,
)
from orkestrel.toolbox.inference.factories import create_endpoint_tool, create_infer_tool
from orkestrel.toolbox.inference.shapes import infer_tool_shape
from orkestrel.toolbox.inference.types import (
    EndpointDefinition,
    EndpointHandler,
    EndpointToolOptions,
    InferCheck,
    InferToolOptions,
)

__all__ = [
    "INFER_TOOL_DESCRIPTION",
    "INFER_TOOL_NAME",
    "INFER_TOOL_PROGRESS_SAMPLES",
    "INFER_TOOL_SUMMARY",
    "EndpointDefinition",
    "EndpointHandler",
    "EndpointToolOptions",
    "InferCheck",
    "InferToolOptions",
    "create_endpoint_tool",
    "create_infer_tool",
    "infer_tool_shape",
]
