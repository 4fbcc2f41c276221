"""`ProgressPacer`: progress reports at a bounded rate, the first and last always sent."""

from __future__ import annotations

import pytest

from orkestrel.tool import PROGRESS_INTERVAL, ProgressPacer, ToolContext
from support.progress import Listener

pytestmark = pytest.mark.anyio


async def test_reports_within_the_interval_are_coalesced_into_the_last() -> None:
    heard = Listener()
    pacer = ProgressPacer(heard, interval=3600)
    for done in range(1, 11):
        await pacer.report(done, 10, f"{done} of 10")
    assert heard.reports == [(1, 10, "1 of 10"), (10, 10, "10 of 10")]


async def test_without_an_interval_every_report_goes_out() -> None:
    heard = Listener()
    pacer = ProgressPacer(heard, interval=0)
    for done in range(1, 4):
        await pacer.report(done, 3, "step")
    assert [done for done, _, _ in heard.reports] == [1, 2, 3]
    assert PROGRESS_INTERVAL > 0


class Sends(ToolContext):
    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        return None


def test_a_context_wants_progress_only_where_reports_go_somewhere() -> None:
    assert ToolContext().wants_progress is False
    assert Sends().wants_progress is True
    assert Listener(listening=False).wants_progress is False
