"""Pure helpers of the database tool: row caps, query normalisation, error classification and
the byte cap on `records` answers.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, cast

from orkestrel import _core
from orkestrel.database import DatabaseErrorCode, DriverFactory, DriverInterface, QueryInput
from orkestrel.database import is_database_error as _is_database_error
from orkestrel.toolbox.database.types import ClampedQuery, DatabaseQueryInput, RecordsResult


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


def fit_records(rows: list[dict[str, Any]], limit: int, size: int) -> RecordsResult:
    """Builds a `records` answer from probe rows: at most `limit` rows, and no more than fit in
    `size` bytes of JSON (as `json.dumps` writes it by default, the largest of its usual forms).

    `truncated` is true when storage held more matching rows than the answer carries.
    """
    kept = rows[:limit]
    truncated = len(rows) > limit
    answer: RecordsResult = {
        "rows": kept,
        "count": len(kept),
        "truncated": truncated,
        "limit": limit,
    }
    if _size(answer) <= size:
        return answer
    budget = size - _size({"rows": [], "count": len(kept), "truncated": True, "limit": limit})
    count = 0
    for row in kept[:-1]:
        cost = _size(row) + (2 if count else 0)
        if cost > budget:
            break
        budget -= cost
        count += 1
    while True:
        answer = {"rows": kept[:count], "count": count, "truncated": True, "limit": limit}
        if count == 0 or _size(answer) <= size:
            return answer
        count -= 1
