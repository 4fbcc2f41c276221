"""The MCP tasks of `orkestrel serve`: the workflow and agent calls of a client that declared the
Tasks extension run as tasks kept beside the workflow runs (under `--data`, or on the
`--database` PostgreSQL), so any server on that store answers for them."""

from __future__ import annotations

import argparse
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from orkestrel.cli.arguments import positive_int
from orkestrel.cli.runs import open_runs_driver
from orkestrel.database import create_database
from orkestrel.tool import ToolManagerInterface
from orkestrel.toolbox import WORKFLOW_TOOL_NAME
from orkestrel.toolbox.agent import AGENT_TOOL_NAME

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState
    from orkestrel.mcp.tasks import TaskBroker

TASK_TOOLS = (WORKFLOW_TOOL_NAME, AGENT_TOOL_NAME)
"""The served tools whose calls become tasks: the ones that can outlast a client's timeout."""

# These mirror `orkestrel.mcp.constants`, which cannot be imported without the MCP SDK, and
# the parser must work (to say how to get the SDK) without it.
DEFAULT_TASK_TTL_SECONDS = 3600.0
MAX_TASK_TTL_SECONDS = 7 * 24 * 3600.0
DEFAULT_MAX_LIVE_TASKS = 16


def _ttl(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 1 <= value <= MAX_TASK_TTL_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected seconds from 1 to {MAX_TASK_TTL_SECONDS:g} (a week), got {text!r}"
        )
    return value


def add_task_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds `--task-ttl` and `--max-tasks`."""
    group = parser.add_argument_group(
        "MCP tasks (clients that declare io.modelcontextprotocol/tasks)"
    )
    group.add_argument(
        "--task-ttl",
        type=_ttl,
        default=DEFAULT_TASK_TTL_SECONDS,
        metavar="SECONDS",
        help="keep a task and its result this long from its start, then delete it "
        f"(default: {DEFAULT_TASK_TTL_SECONDS:g}; at most a week)",
    )
    group.add_argument(
        "--max-tasks",
        type=positive_int,
        default=DEFAULT_MAX_LIVE_TASKS,
        metavar="N",
        help="tasks one client (one token) may have working at once; past it a call is refused "
        f"(default: {DEFAULT_MAX_LIVE_TASKS})",
    )


@asynccontextmanager
async def open_task_broker(
    options: argparse.Namespace, manager: ToolManagerInterface, shared: SharedState | None
) -> AsyncIterator[TaskBroker | None]:
    """Opens the task broker of a served toolbox for as long as the context lasts: `None` when
    the toolbox has no tool to run as a task (`workflow`, `agent`, or one made with
    `task=True`), or under `--readonly` (nothing is stored)."""
    tools = [name for name in TASK_TOOLS if manager.tool(name) is not None]
    opted = any(getattr(tool, "task", False) is True for tool in manager.tools())
    if not (tools or opted) or options.readonly:
        yield None
        return
    # Deferred: the MCP SDK is an optional dependency (the `mcp` extra).
    from orkestrel.mcp.constants import TASKS_TABLE
    from orkestrel.mcp.task_store import TASKS_COLUMNS, TaskStore
    from orkestrel.mcp.tasks import TaskBroker

    driver = await open_runs_driver(options, shared)
    store = TaskStore(create_database(tables={TASKS_TABLE: TASKS_COLUMNS}, driver=driver))
    try:
        yield TaskBroker(
            store,
            tools=tools,
            ttl_ms=round(options.task_ttl * 1000),
            max_live=options.max_tasks,
        )
    finally:
        with anyio.CancelScope(shield=True):
            await store.close()
