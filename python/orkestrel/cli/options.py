"""The command-line options every toolbox command shares."""

from __future__ import annotations

import argparse
import functools
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TextIO

import anyio

from orkestrel.cli.agent import (
    AGENT_MAX_AGENTS,
    AGENT_MAX_REQUESTS,
    agent_factory,
)
from orkestrel.cli.arguments import nonnegative_int, positive_int, positive_seconds
from orkestrel.cli.builtins import builtin_factories
from orkestrel.cli.builtins import database as served_database
from orkestrel.cli.builtins import workspace as served_workspace
from orkestrel.cli.shared import PostgresSettings, SharedState, open_shared_state, unreachable
from orkestrel.cli.toolbox import ToolboxSetupError, open_toolbox
from orkestrel.cli.workflow import workflow as served_workflow
from orkestrel.cli.workspace import WorkspaceCaps
from orkestrel.database.constants import POSTGRES_POOL_SIZE, POSTGRES_POOL_TIMEOUT
from orkestrel.tool import ToolManager
from orkestrel.toolbox import (
    AGENT_TOOL_NAME,
    DATABASE_TOOL_KEYS,
    WORKSPACE_READ_CHARS,
    WORKSPACE_READ_LINES,
    WORKSPACE_SEARCH_MATCHES,
)
from orkestrel.workflow import MAX_ANSWER_BYTES

DATA_FOLDER = ".orkestrel"
"""The folder under `--root` where the toolbox keeps its state unless `--data` says."""


def data_of(options: argparse.Namespace) -> Path:
    """The data folder a command line names: `--data`, or `.orkestrel` under `--root`."""
    data: Path | None = options.data
    return data if data is not None else options.root / DATA_FOLDER


def add_toolbox_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds `--root`, `--data`, `--database`, `--pool-size`, `--pool-timeout`, `--readonly`,
    `--relations`, `--workflow`, `--workflow-answer-bytes`, the caps on what one workspace
    `read` or `search` and one database `add` answer, and `--tools` to a toolbox command's
    parser."""
    parser.add_argument(
        "--root",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="directory the workspace tool edits (default: the current directory)",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="DIR",
        help="directory for databases and their definitions (default: .orkestrel under --root)",
    )
    parser.add_argument(
        "--database",
        default=None,
        metavar="DSN",
        help="keep databases, definitions, the workspace and workflow runs on this PostgreSQL "
        "(postgresql://...) instead of under --data, shared by every server pointed at it",
    )
    parser.add_argument(
        "--pool-size",
        type=positive_int,
        default=POSTGRES_POOL_SIZE,
        metavar="N",
        help=f"most PostgreSQL connections this process opens (default: {POSTGRES_POOL_SIZE})",
    )
    parser.add_argument(
        "--pool-timeout",
        type=positive_seconds,
        default=POSTGRES_POOL_TIMEOUT,
        metavar="SECONDS",
        help="how long a call waits for a free connection before it fails as retryable "
        f"(default: {POSTGRES_POOL_TIMEOUT:g})",
    )
    parser.add_argument(
        "--readonly",
        action="store_true",
        help="refuse every write, at the tools and at the storage engines",
    )
    parser.add_argument(
        "--relations",
        type=Path,
        default=None,
        metavar="FILE",
        help="a TOML or JSON file of relation maps over the database tool's databases; "
        "adds the relation tool",
    )
    parser.add_argument(
        "--workflow",
        action="store_true",
        help="add the workflow tool, whose steps call the other tools (runs kept under --data)",
    )
    parser.add_argument(
        "--workflow-answer-bytes",
        type=positive_int,
        default=MAX_ANSWER_BYTES,
        metavar="BYTES",
        help="most bytes of JSON the step answers of one workflow run may add up to; the step "
        f"that passes it fails and stops the run (default: {MAX_ANSWER_BYTES})",
    )
    parser.add_argument(
        "--workspace-read-lines",
        type=positive_int,
        default=WORKSPACE_READ_LINES,
        metavar="N",
        help="most lines one workspace read answers; a cut answer ends with a line saying how "
        f"to read on (default: {WORKSPACE_READ_LINES})",
    )
    parser.add_argument(
        "--workspace-read-chars",
        type=positive_int,
        default=WORKSPACE_READ_CHARS,
        metavar="N",
        help="most characters one workspace read answers, and one search of matched lines "
        f"(default: {WORKSPACE_READ_CHARS})",
    )
    parser.add_argument(
        "--workspace-search-matches",
        type=positive_int,
        default=WORKSPACE_SEARCH_MATCHES,
        metavar="N",
        help="most matches one workspace search answers; past it the answer says it was cut "
        f"(default: {WORKSPACE_SEARCH_MATCHES})",
    )
    parser.add_argument(
        "--database-answer-keys",
        type=nonnegative_int,
        default=DATABASE_TOOL_KEYS,
        metavar="N",
        help="most keys a database add or set of many rows answers; past it the answer is the "
        f"count, the first N keys and truncated: true (default: {DATABASE_TOOL_KEYS})",
    )
    parser.add_argument(
        "--tools",
        type=_names,
        default=None,
        metavar="LIST",
        help="comma-separated tool factories to load (default: all, plugins included)",
    )


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected one or more comma-separated names")
    return names


@asynccontextmanager
async def shared_of(options: argparse.Namespace) -> AsyncIterator[SharedState | None]:
    """Opens the PostgreSQL state `--database` names (one connection pool) for as long as the
    context lasts; `None` without `--database`."""
    dsn = getattr(options, "database", None)
    if dsn is None:
        yield None
        return
    # A server that starts on a DSN it cannot reach only logs connection errors from then on.
    reason = await anyio.to_thread.run_sync(unreachable, dsn)
    if reason is not None:
        raise ToolboxSetupError(f"--database: {reason}", usage=True)
    async with open_shared_state(
        PostgresSettings(dsn, options.pool_size, options.pool_timeout)
    ) as shared:
        yield shared


@asynccontextmanager
async def toolbox_of(
    options: argparse.Namespace, stderr: TextIO, shared: SharedState | None = None
) -> AsyncIterator[ToolManager]:
    """Opens the toolbox a command's toolbox options describe, warning on `stderr`.

    With `--agent`, the agent tool is one of the built-in tools, and selected whatever `--tools`
    says; with `--workflow` too, a workflow step can delegate to it, and the workflows its
    sub-agent runs stay in the step's lineage. `--relations` needs the database tool, whose
    databases the relation tool reads, so a selection without `database` raises
    `ToolboxSetupError`. With `--database`, the toolbox keeps its state through `shared`, or
    through a pool it opens for as long as the toolbox when `shared` is not given.
    """
    relations = getattr(options, "relations", None)
    if relations is not None and options.tools is not None and "database" not in options.tools:
        raise ToolboxSetupError("--relations needs the database tool in --tools", usage=True)
    workflow = bool(getattr(options, "workflow", False))
    builtins = builtin_factories(workflow=workflow)
    select = options.tools
    if workflow and select is not None and "workflow" not in select:
        select = [*select, "workflow"]
    spec = getattr(options, "agent", None)
    if workflow:
        builtins["workflow"] = functools.partial(
            served_workflow,
            delegate=None if spec is None else AGENT_TOOL_NAME,
            max_answer_bytes=getattr(options, "workflow_answer_bytes", MAX_ANSWER_BYTES),
        )
    builtins["workspace"] = functools.partial(
        served_workspace,
        caps=WorkspaceCaps(
            read_lines=getattr(options, "workspace_read_lines", WORKSPACE_READ_LINES),
            read_chars=getattr(options, "workspace_read_chars", WORKSPACE_READ_CHARS),
            search_matches=getattr(options, "workspace_search_matches", WORKSPACE_SEARCH_MATCHES),
        ),
    )
    builtins["database"] = functools.partial(
        served_database, keys=getattr(options, "database_answer_keys", DATABASE_TOOL_KEYS)
    )
    if spec is not None:
        builtins[AGENT_TOOL_NAME] = agent_factory(
            spec,
            getattr(options, "base_url", None),
            max_agents=getattr(options, "agent_max_agents", AGENT_MAX_AGENTS),
            max_requests=getattr(options, "agent_max_requests", AGENT_MAX_REQUESTS),
        )
        if select is not None and AGENT_TOOL_NAME not in select:
            select = [*select, AGENT_TOOL_NAME]
    async with AsyncExitStack() as stack:
        if shared is None:
            shared = await stack.enter_async_context(shared_of(options))
        toolbox = open_toolbox(
            root=options.root,
            data=data_of(options),
            readonly=options.readonly,
            select=select,
            builtins=builtins,
            warn=lambda message: print(f"orkestrel: {message}", file=stderr),
            relations=relations,
            shared=shared,
        )
        yield await stack.enter_async_context(toolbox)
