"""Pure helpers of the database tool: row caps, query normalisation, error classification and
the byte caps on `records` and `get` answers.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, cast

import anyio

from orkestrel import _core
from orkestrel.database import (
    DatabaseErrorCode,
    DriverFactory,
    DriverInterface,
    Key,
    QueryInput,
    Row,
    TransactionTable,
)
from orkestrel.database import is_database_error as _is_database_error
from orkestrel.tool import PROGRESS_INTERVAL
from orkestrel.tool.gather import run_beside
from orkestrel.tool.json_sizer import JsonSizer
from orkestrel.toolbox.database.types import ClampedQuery, DatabaseQueryInput, RecordsResult
from orkestrel.toolbox.errors import ToolboxError

T = TypeVar("T")
Report = Callable[[int, int, str], Awaitable[None]]
"""Sends `done` of `total` with a message: a `ProgressPacer`'s `report`, which bounds the rate."""

PROGRESS_TICK: Final = PROGRESS_INTERVAL / 10
"""How often, in seconds, a counted write's count is read while it runs; the pacer sends at
most one report per `PROGRESS_INTERVAL` of them, the first at once."""


def resolve_limit(requested: int | None, cap: int) -> int:
    """Picks the effective row limit a tool reads with: the requested count when it sits inside
    the cap, the cap when it exceeds it, and `0` when either falls below zero.
    """
    return _core.resolve_limit(requested, cap)


def clamp_query(query: DatabaseQueryInput | QueryInput | None, cap: int) -> ClampedQuery:
    """Clamps a `records` call's query to a row cap and builds the probe query, one row past the
    limit, that detects truncation without a separate count.
    """
    return cast(ClampedQuery, _core.clamp_query(query, cap))


def normalize_query(query: DatabaseQueryInput | None) -> QueryInput | None:
    """Returns the canonical database `QueryInput` for the tool's parsed serialized query: each
    condition's omitted `connector` defaults to `'and'`.
    """
    return cast("QueryInput | None", _core.normalize_query(query))


def infer_database_code(error: object) -> DatabaseErrorCode | None:
    """Maps a caught error to the granular `DatabaseErrorCode` the database tool raises with,
    or `None` when the error is not a `DatabaseError`.
    """
    return error.code if _is_database_error(error) else None


def build_driver(
    factory: DriverFactory | Callable[[], DriverInterface], id: str
) -> DriverInterface:
    """Calls a driver factory, passing the database id when the factory takes a parameter, so a
    zero-argument factory such as `create_memory_driver` works as well.
    """
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return cast(DriverFactory, factory)(id)
    takes = any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in parameters
    )
    return (
        cast(DriverFactory, factory)(id)
        if takes
        else cast(Callable[[], DriverInterface], factory)()
    )


def _size(value: Any) -> int:
    # Measured in Rust without writing the text (several times faster than `json.dumps` on
    # big answers); anything it cannot measure exactly (a subclass, a cycle) is written out.
    size = _core.json_size(value)
    return len(json.dumps(value)) if size is None else size


def fit_records(
    rows: list[dict[str, Any]], limit: int, size: int, *, shared: bool = False
) -> RecordsResult:
    """Builds a `records` answer from probe rows: at most `limit` rows, and no more than fit in
    `size` bytes of JSON (as `json.dumps` writes it by default, the largest of its usual forms).

    `truncated` is true when storage held more matching rows than the answer carries. `shared`
    says the rows may hold one object in many places (related rows a relation load attached):
    they are then measured with each such part walked once and given up on past the cap, where
    the fast plain measure would walk every copy JSON would write.
    """
    kept = rows[:limit]
    truncated = len(rows) > limit
    answer: RecordsResult = {
        "rows": kept,
        "count": len(kept),
        "truncated": truncated,
        "limit": limit,
    }
    if not shared and _size(answer) <= size:
        return answer
    sizer = JsonSizer() if shared else None

    def measure(value: Any, most: int) -> int | None:
        if sizer is not None:
            return sizer.measure(value, most)
        length = _size(value)
        return length if length <= most else None

    if shared and measure(answer, size) is not None:
        return answer
    header = measure({"rows": [], "count": len(kept), "truncated": True, "limit": limit}, size)
    budget = -1 if header is None else size - header
    count = 0
    for row in kept[:-1]:
        separator = 2 if count else 0
        cost = measure(row, budget - separator)
        if cost is None:
            break
        budget -= cost + separator
        count += 1
    while True:
        answer = {"rows": kept[:count], "count": count, "truncated": True, "limit": limit}
        if count == 0 or measure(answer, size) is not None:
            return answer
        count -= 1


GET_BATCH: Final = 256
"""The most keys a many-key `get` reads at once while it measures its answer."""


def over_size(tool: str, operation: str, size: int, advice: str) -> ToolboxError:
    """The refusal of an answer over a tool's `size` cap: one line naming the cap and option."""
    return ToolboxError(
        "TOOL",
        f"{operation} answer is over the {tool} tool's size cap of {size} bytes of JSON (size); "
        f"{advice}",
        {"operation": operation, "limit": size, "option": "size"},
    )


def get_within(view: TransactionTable, keys: list[Key], size: int) -> list[Row | None] | None:
    """Reads the rows of a many-key `get` into an answer `{"rows": [...]}` of at most `size`
    bytes of JSON, or `None` as soon as it is known not to fit.

    A key named again is read once, but counted in the answer as often as it is named. The rows
    are read in batches and measured as they come: the first batch is one key, and each next one
    holds as many keys as would still fit were each row as large as the largest read so far (at
    most `GET_BATCH`), so rows like those already read are never held past the cap.
    """
    named: dict[tuple[type, Key], int] = {}
    for key in keys:
        ident = (type(key), key)
        named[ident] = named.get(ident, 0) + 1
    pending = list(named.items())
    budget = size - len('{"rows": []}') - 2 * max(len(keys) - 1, 0)
    if budget < len("null") * len(keys):
        return None
    sizer = JsonSizer()
    found: dict[tuple[type, Key], Row | None] = {}
    largest = batch = 1
    while pending:
        chunk, pending = pending[:batch], pending[batch:]
        for (ident, times), row in zip(
            chunk, view.get([ident[1] for ident, _ in chunk]), strict=True
        ):
            cost = sizer.measure(row, max(budget, 0) // times)
            if cost is None or budget < 0:
                return None
            budget -= cost * times
            largest = max(largest, cost)
            found[ident] = row
        batch = max(1, min(GET_BATCH, budget // largest))
    rows: list[Row | None] = []
    given: set[tuple[type, Key]] = set()
    for key in keys:
        ident = (type(key), key)
        row = found[ident]
        rows.append(dict(row) if row is not None and ident in given else row)  # a row of its own
        given.add(ident)
    return rows


async def report_while(
    work: Callable[[], Awaitable[T]],
    done: list[int],
    total: int,
    message: Callable[[int], str],
    report: Report,
) -> T:
    """Runs `work`, which moves `done[0]` on from its worker thread, and reports that count
    every `PROGRESS_TICK` while it is under `total`; once `work` has returned, `total` itself.
    A report goes out only for a count higher than the last one sent."""
    sent = 0

    async def watch() -> None:
        nonlocal sent
        while True:
            await anyio.sleep(PROGRESS_TICK)
            count = done[0]
            if sent < count < total:
                sent = count
                await report(count, total, message(count))

    result = await run_beside(work(), watch)
    await report(total, total, message(total))
    return result
