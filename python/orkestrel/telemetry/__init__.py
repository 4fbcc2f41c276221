"""OpenTelemetry spans of tool executions after the GenAI semantic conventions
(`execute_tool {name}`), made only where the `opentelemetry` API is installed (the `otel`
extra), and `otlp_export`, which `orkestrel serve` uses to send them to an OTLP endpoint."""

from orkestrel.telemetry.constants import MAX_SPAN_NAME, NOT_INSTALLED, TRACER_NAME
from orkestrel.telemetry.helpers import failed, otlp_export, tool_error_type, tool_span

__all__ = [
    "MAX_SPAN_NAME",
    "NOT_INSTALLED",
    "TRACER_NAME",
    "failed",
    "otlp_export",
    "tool_error_type",
    "tool_span",
]
