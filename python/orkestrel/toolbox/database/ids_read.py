"""The in-process caller whose database tool call answers the database ids by prefix."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IdsRead:
    """Represents a caller of the database tool inside the process (the MCP server completing
    a database id): its call answers `{"ids", "total"}`, the first `limit` database ids that
    start with `prefix` and how many do, in place of the operation its arguments name. A model
    cannot be this caller: it sends JSON arguments only."""

    prefix: str
    limit: int
