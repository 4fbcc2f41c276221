"""The names the spans of tool executions are made under."""

from __future__ import annotations

from typing import Final

TRACER_NAME: Final = "orkestrel"
"""The instrumentation scope of orkestrel's spans."""

MAX_SPAN_NAME: Final = 128
"""The most characters of a tool name a span's name and `gen_ai.tool.name` carry: a client
names the tool of a call, so a longer name is cut."""

OTLP_ENDPOINTS: Final = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
"""The environment variables whose presence has `orkestrel serve` export spans over OTLP."""

NOT_INSTALLED: Final = (
    "an OTLP endpoint is set, but the otel extra is not installed (pip install "
    "'orkestrel[otel]'): no spans are exported"
)
"""What `otlp_export` answers where an endpoint is named but the SDK or exporter is missing."""
