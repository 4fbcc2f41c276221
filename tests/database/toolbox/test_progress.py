"""Writes of many rows report their progress to a caller that listens, step by step in one
transaction, and leave the fast path alone otherwise."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.toolbox import DATABASE_TOOL_PROGRESS_ROWS, ToolboxError
from support.progress import Listener

from .conftest import Setup

pytestmark = pytest.mark.anyio

TABLES = {"items": {"columns": {"n": "integer"}}}
MANY = 2 * DATABASE_TOOL_PROGRESS_ROWS + 500


async def created(setup: Setup) -> Any:
    tool = setup.tool()
    await tool.execute(
        {"operation": "create", "id": setup.id, "driver": setup.driver, "tables": TABLES}
    )
    return tool


def rows(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"id": f"r{n:05}", "n": n} for n in range(start, start + count)]


async def count(tool: Any, setup: Setup) -> int:
    answer = await tool.execute({"operation": "count", "id": setup.id, "table": "items"})
    return int(answer["count"])


def settled(listener: Listener, operation: str, noun: str) -> list[float]:
    for done, total, message in listener.reports:
        assert total == MANY
        assert message == f"{operation}: {int(done)} of {MANY} {noun} of table 'items' done"
    done = [report[0] for report in listener.reports]
    assert done == sorted(set(done))
    return done


async def test_an_update_and_a_remove_of_many_keys_report_their_progress(setup: Setup) -> None:
    tool = await created(setup)
    await tool.execute({"operation": "add", "id": setup.id, "table": "items", "row": rows(MANY)})
    keys = [row["id"] for row in rows(MANY)]
    updating, removing = Listener(), Listener()
    call = {"id": setup.id, "table": "items"}
    updated = await tool.execute(
        {**call, "operation": "update", "key": keys, "changes": {"n": -1}}, updating
    )
    removed = await tool.execute(
        {**call, "operation": "remove", "key": [*keys[:-1], "ghost"]}, removing
    )
    assert updated == {"updated": [True] * MANY}
    assert removed == {"removed": [True] * (MANY - 1) + [False]}
    assert settled(updating, "update", "keys")[-1] == MANY
    assert settled(removing, "remove", "keys")[-1] == MANY
    assert await count(tool, setup) == 1


async def test_an_add_that_fails_part_way_writes_nothing_and_never_reports_the_end(
    setup: Setup,
) -> None:
    tool = await created(setup)
    await tool.execute({"operation": "add", "id": setup.id, "table": "items", "row": rows(1, 1800)})
    listener = Listener()
    with pytest.raises(ToolboxError) as refused:
        await tool.execute(
            {"operation": "add", "id": setup.id, "table": "items", "row": rows(MANY)}, listener
        )
    assert refused.value.context["code"] == "CONFLICT"
    assert await count(tool, setup) == 1
    assert all(done < MANY for done in settled(listener, "add", "rows"))


async def test_a_small_write_or_a_caller_that_does_not_listen_is_not_counted(
    setup: Setup,
) -> None:
    tool = await created(setup)
    small, deaf = Listener(), Listener(listening=False)
    table = {"id": setup.id, "table": "items"}
    few = rows(DATABASE_TOOL_PROGRESS_ROWS)
    await tool.execute({**table, "operation": "add", "row": few}, small)
    await tool.execute({**table, "operation": "set", "row": rows(MANY)}, deaf)
    assert (small.reports, deaf.reports) == ([], [])
    assert await count(tool, setup) == MANY


async def test_a_counted_write_is_refused_in_the_words_of_an_uncounted_one(setup: Setup) -> None:
    tool = await created(setup)
    refusals = []
    call = {"operation": "add", "id": setup.id, "table": "nope", "row": rows(MANY)}
    for caller in (None, Listener()):
        with pytest.raises(ToolboxError) as refused:
            await tool.execute(call, caller)
        refusals.append((str(refused.value), refused.value.context["code"]))
    assert refusals[0] == refusals[1]
    assert refusals[0] == (f"database '{setup.id}' has no table \"nope\"", "NOT_FOUND")
