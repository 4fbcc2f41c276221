"""`orkestrel serve`: the toolbox served to MCP clients over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Any, TextIO

import anyio

from orkestrel.cli.agent import add_agent_arguments
from orkestrel.cli.ask import Ask, AskSetupError, add_ask_arguments, open_ask, page_url
from orkestrel.cli.constants import COMMANDS
from orkestrel.cli.options import add_toolbox_arguments, toolbox_of
from orkestrel.cli.toolbox import ToolboxSetupError
from orkestrel.tool import ToolManager

USAGE = 2
FAILURE = 1


def register(commands: Any) -> argparse.ArgumentParser:
    """Adds the `serve` command and its options to the `orkestrel` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "serve",
        help=COMMANDS["serve"][1],
        description="Serve the toolbox to MCP clients: over stdio (for a client that starts "
        "this command) or over streamable HTTP on loopback.",
    )
    add_toolbox_arguments(parser)
    add_agent_arguments(parser)
    add_ask_arguments(parser)
    parser.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio for a client that starts this command, http to listen (default: stdio)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP interface to bind (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="HTTP port, 0 for a free one (default: 8000)"
    )
    parser.set_defaults(run=run)
    return parser


def run(options: argparse.Namespace) -> int:
    """Runs a parsed `serve` command line and returns its exit status."""
    return anyio.run(run_serve, options)


async def run_serve(options: argparse.Namespace, *, stderr: TextIO | None = None) -> int:
    """Builds the toolbox and serves it until the client leaves (stdio) or the process is
    stopped (HTTP); returns the exit status.

    Over HTTP it prints `listening on <url>` to stderr once it accepts connections.
    """
    err = stderr or sys.stderr
    if getattr(options, "base_url", None) is not None and getattr(options, "agent", None) is None:
        print("orkestrel serve: --base-url needs --agent", file=err)
        return USAGE
    interactive = options.transport == "stdio" and sys.stdin.isatty()
    try:
        import orkestrel.mcp  # noqa: F401
    except ImportError as error:
        print(f"orkestrel serve: {error}", file=err)
        return FAILURE
    try:
        ask = open_ask(options) if getattr(options, "ask", False) else None
    except AskSetupError as error:
        print(f"orkestrel serve: {error}", file=err)
        return USAGE
    try:
        async with toolbox_of(options, err) as manager:
            if ask is not None:
                manager.add(ask.tool)
            await _serve(manager, options, interactive, err, ask)
    except ToolboxSetupError as error:
        print(f"orkestrel serve: {error}", file=err)
        return USAGE if error.usage else FAILURE
    except OSError as error:
        print(f"orkestrel serve: {error}", file=err)
        return FAILURE
    return 0


async def _serve(
    manager: ToolManager,
    options: argparse.Namespace,
    interactive: bool,
    err: TextIO,
    ask: Ask | None = None,
) -> None:
    from orkestrel.mcp import serve
    from orkestrel.mcp.helpers import raise_alone

    try:
        async with anyio.create_task_group() as group:
            closing = anyio.CancelScope()
            if ask is not None:
                group.start_soon(_close_on_exit, ask, closing)
            where = await group.start(
                functools.partial(
                    _until_closed,
                    closing,
                    functools.partial(
                        serve,
                        manager,
                        options.transport,
                        host=options.host,
                        port=options.port,
                        routes=ask.routes if ask is not None else (),
                    ),
                )
            )
            if options.transport == "http":
                print(f"listening on {where}", file=err, flush=True)
                if ask is not None:
                    print(f"answer forms at {page_url(where, ask.terminal)}", file=err, flush=True)
            elif interactive:
                print(
                    f"orkestrel: serving {manager.count} tools over stdio to the MCP client "
                    "that runs this command; press Ctrl-D to stop",
                    file=err,
                    flush=True,
                )
    except BaseExceptionGroup as group:
        raise_alone(group)


async def _close_on_exit(ask: Ask, closing: anyio.CancelScope) -> None:
    # Destroying the terminals as the server stops ends their open streams, which would
    # otherwise hold the HTTP shutdown for its whole grace period.
    with closing:
        try:
            await anyio.sleep_forever()
        finally:
            ask.manager.destroy()


async def _until_closed(
    closing: anyio.CancelScope, run: Any, *, task_status: Any = anyio.TASK_STATUS_IGNORED
) -> None:
    try:
        await run(task_status=task_status)
    finally:
        closing.cancel()
