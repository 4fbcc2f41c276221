"""`ToolContext`: what a handler may tell the client that is calling it while it runs."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeAlias

from orkestrel.tool.signatures import CALLER

LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
"""The log levels a handler may use (the syslog levels MCP names)."""

LOG_LEVELS: tuple[LogLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)


class ToolContext:
    """Represents the call a handler is serving: progress reports and log entries go to the
    client that made it. This base class goes nowhere (used in process, where no client
    listens); the MCP server passes one that sends `notifications/progress` and
    `notifications/message`.

    A `@tool` parameter annotated `Context` receives it and is left out of the schema; a plain
    handler receives it as its second argument (the call's `caller`).

    `resume` is true when the call continues an interrupted run of the same call (a task whose
    server died, taken over by another): a tool that checkpoints (the workflow tool) resumes
    from its checkpoints instead of starting over.
    """

    resume: bool = False

    @property
    def wants_progress(self) -> bool:
        """Whether progress reports reach anyone, so that work which must count itself to
        report (a write of many rows, a large inference) skips the counting when they do not:
        this base (which goes nowhere) says no, a subclass that overrides `report_progress`
        says yes unless it overrides this too (the MCP server's says whether the client sent a
        progress token)."""
        return type(self).report_progress is not ToolContext.report_progress

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Reports how far the call has got (`progress` of `total`, when known)."""

    async def log(self, level: LogLevel, data: Any, *, logger: str | None = None) -> None:
        """Sends one log entry (`data` is any JSON value, usually a message) at `level`."""

    async def debug(self, message: str) -> None:
        """Sends a `debug` log entry."""
        await self.log("debug", message)

    async def info(self, message: str) -> None:
        """Sends an `info` log entry."""
        await self.log("info", message)

    async def warning(self, message: str) -> None:
        """Sends a `warning` log entry."""
        await self.log("warning", message)

    async def error(self, message: str) -> None:
        """Sends an `error` log entry."""
        await self.log("error", message)


Context: TypeAlias = Annotated[ToolContext, CALLER]
"""Annotates the `@tool` parameter that receives the call's `ToolContext`; `Caller[ToolContext]`
spelled short. Without a caller (in process) it receives its default, else `None`."""
