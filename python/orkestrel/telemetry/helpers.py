"""Spans of tool executions, and their export over OTLP."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from orkestrel.telemetry.constants import (
    MAX_SPAN_NAME,
    NOT_INSTALLED,
    OTLP_ENDPOINTS,
    TRACER_NAME,
)


@functools.cache
def _tracer() -> Any:
    try:
        # Deferred: opentelemetry is an optional dependency (the `otel` extra).
        from opentelemetry import trace
    except ImportError:
        return None
    # A proxy: spans go to whichever tracer provider is set, now or later.
    return trace.get_tracer(TRACER_NAME)


@contextmanager
def tool_span(
    name: str, call_id: str | None = None, attributes: Mapping[str, Any] | None = None
) -> Iterator[Any]:
    """Traces the enclosed execution of the tool `name` as an `execute_tool {name}` span
    (`gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.type`, and
    `gen_ai.tool.call.id` when given), a child of the current span; yields it, or `None` where
    the `opentelemetry` API is not installed. An exception leaving the block sets `error.type`
    to its type's name."""
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    # Deferred: opentelemetry is an optional dependency (the `otel` extra).
    from opentelemetry.trace import SpanKind

    shown = name[:MAX_SPAN_NAME]
    fields: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": shown,
        "gen_ai.tool.type": "function",
    }
    if call_id is not None:
        fields["gen_ai.tool.call.id"] = call_id
    fields.update(attributes or {})
    with tracer.start_as_current_span(
        f"execute_tool {shown}",
        kind=SpanKind.INTERNAL,
        attributes=fields,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield span
        except BaseException as error:
            failed(span, type(error).__qualname__, str(error))
            raise


def failed(span: Any, kind: str, message: str) -> None:
    """Marks `span` (from `tool_span`; `None` does nothing) as failed: `error.type` `kind`
    and an error status saying `message`."""
    if span is None:
        return
    # Deferred: opentelemetry is an optional dependency (the `otel` extra).
    from opentelemetry.trace import StatusCode

    span.set_attribute("error.type", kind)
    span.set_status(StatusCode.ERROR, message[:1000])


def tool_error_type(message: str) -> str:
    """The `error.type` of a failed tool call, from its error line: `tool_not_found`,
    `timeout`, or `tool_error` (the value the MCP SDK's own spans give a failed call)."""
    if message.startswith("tool not found: "):
        return "tool_not_found"
    if message.startswith("tool timed out after "):
        return "timeout"
    return "tool_error"


@contextmanager
def otlp_export() -> Iterator[str | None]:
    """Exports every span made in the block to the OTLP/HTTP endpoint the standard variables
    name (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`), under the
    service `OTEL_SERVICE_NAME` (default `orkestrel`); the spans still waiting are sent as the
    block ends. Yields `None` when it exports, else why not: no endpoint named,
    `OTEL_SDK_DISABLED`, a tracer provider already set (an `opentelemetry-instrument` run
    exports itself), or the `otel` extra not installed."""
    names = os.environ
    if not any(names.get(name) for name in OTLP_ENDPOINTS):
        yield "no OTLP endpoint is set"
        return
    if names.get("OTEL_SDK_DISABLED", "").lower() == "true":
        yield "OTEL_SDK_DISABLED is true"
        return
    try:
        # Deferred: opentelemetry's SDK and exporter are optional dependencies (the `otel` extra).
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        yield NOT_INSTALLED
        return
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        yield "a tracer provider is already set"
        return
    service = names.get("OTEL_SERVICE_NAME") or TRACER_NAME
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    try:
        yield None
    finally:
        provider.shutdown()
