"""`Listener`: a `ToolContext` that keeps the progress reports a handler sends it."""

from __future__ import annotations

from orkestrel.tool import ToolContext

Report = tuple[float, float | None, str | None]
"""One progress report as a handler sent it: `(progress, total, message)`."""


class Listener(ToolContext):
    """Keeps every progress report it is sent; `listening=False` makes it say it wants none
    (as an MCP caller without a progress token does), though it still keeps what it is sent."""

    def __init__(self, listening: bool = True) -> None:
        self.listening = listening
        self.reports: list[Report] = []

    @property
    def wants_progress(self) -> bool:
        return self.listening

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        self.reports.append((progress, total, message))
