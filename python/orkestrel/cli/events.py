"""Where `orkestrel serve --transport http` keeps the events it sends for clients that
reconnect with `Last-Event-ID`: in memory, or (with `--database` or `--durable-events`) beside
the workflow runs, so any server on that store, or this one restarted, replays them."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from orkestrel.cli.runs import open_runs_driver
from orkestrel.database import create_database

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState


def add_event_arguments(parser: Any) -> None:
    """Adds `--durable-events` to the HTTP options of `orkestrel serve`."""
    parser.add_argument(
        "--durable-events",
        action="store_true",
        help="keep the events for Last-Event-ID beside the workflow runs under --data, so a "
        "server restarted or another server on the same --data replays them (always on "
        "with --database; off under --readonly)",
    )


def durable(options: argparse.Namespace) -> bool:
    """Whether the options keep the events in the store of the workflow runs."""
    return (
        options.transport == "http"
        and not options.stateless
        and not options.readonly
        and (options.database is not None or options.durable_events)
    )


@asynccontextmanager
async def open_event_store(
    options: argparse.Namespace, shared: SharedState | None
) -> AsyncIterator[Any]:
    """Opens the event store the options ask for, for as long as the context lasts."""
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp import EventStore
    from orkestrel.mcp.constants import EVENTS_TABLE
    from orkestrel.mcp.durable_events import EVENTS_COLUMNS, EVENTS_INDEXES, DurableEventStore
    from orkestrel.mcp.event_store import EventBounds

    bounds = EventBounds(options.events_per_stream, options.event_bytes, options.event_ttl)
    if not durable(options):
        yield EventStore(per_stream=bounds.per_stream, max_bytes=bounds.max_bytes, ttl=bounds.ttl)
        return
    driver = await open_runs_driver(options, shared)
    database = create_database(
        tables={EVENTS_TABLE: EVENTS_COLUMNS}, indexes=EVENTS_INDEXES, driver=driver
    )
    store = DurableEventStore(database, bounds)
    try:
        yield store
    finally:
        with anyio.CancelScope(shield=True):
            await store.close()
