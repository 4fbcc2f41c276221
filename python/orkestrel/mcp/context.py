"""`McpToolContext`: the `ToolContext` a served call's handler gets, wired to its client."""

from __future__ import annotations

from typing import Any

from orkestrel.mcp import sdk
from orkestrel.tool import LogLevel, ToolContext


class McpToolContext(ToolContext):
    """Represents one served MCP request: progress goes out as `notifications/progress` (when
    the client sent a progress token) and log entries as `notifications/message`, both on
    the request's own stream. `endpoint` is the URL the request came in on over HTTP (no
    query), `None` over stdio."""

    def __init__(self, request: sdk.Request) -> None:
        self._request = request
        self.request_id = request.id
        url = getattr(getattr(request.context, "request", None), "url", None)
        self.endpoint: str | None = None if url is None else str(url).split("?", 1)[0]

    @property
    def wants_progress(self) -> bool:
        """Whether the client sent a progress token with this request."""
        return sdk.wants_progress(self._request)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Sends `notifications/progress` for this request."""
        await sdk.report_progress(self._request, progress, total, message)

    async def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Sends `notifications/message` at `level` for this request."""
        await sdk.send_log(self._request, level, data, logger)
