"""`orkestrel serve --ask`: the prompt tool, a terminal for the person at the client, and over
HTTP the terminal routes and the answering page beside the MCP endpoint."""

from __future__ import annotations

import argparse
import ipaddress
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orkestrel.terminal import TerminalManager
    from orkestrel.tool import ToolInterface

ASK_TERMINAL = "user"
"""The terminal `--ask` mounts for the person at the client, unless `--ask-terminal` names
another."""

ASK_FROM = "model"
"""The terminal the prompt tool asks from: the model's side."""

ASK_TOKEN_VARIABLE = "ORKESTREL_ASK_TOKEN"
"""The environment variable `--ask-token` defaults to."""

ASK_TIMEOUT_SECONDS = 300
"""How long a form waits for an answer unless `--ask-timeout` says otherwise."""


def add_ask_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds `--ask`, `--ask-terminal`, `--ask-token` and `--ask-timeout` to `serve`."""
    parser.add_argument(
        "--ask",
        action="store_true",
        help="serve the 'ask' tool: the model asks the person at the client a form, through "
        "MCP elicitation or, over HTTP, the answering page at /terminals/<name>/",
    )
    parser.add_argument(
        "--ask-terminal",
        default=ASK_TERMINAL,
        metavar="NAME",
        help=f"the terminal name of the person who answers (default: {ASK_TERMINAL})",
    )
    parser.add_argument(
        "--ask-token",
        default=os.environ.get(ASK_TOKEN_VARIABLE),
        metavar="TOKEN",
        help="the x-orkestrel-token the answering page and terminal routes require (default: "
        f"${ASK_TOKEN_VARIABLE}; required off loopback)",
    )
    parser.add_argument(
        "--ask-timeout",
        type=int,
        default=ASK_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"how long a form waits for an answer (default: {ASK_TIMEOUT_SECONDS})",
    )


@dataclass(frozen=True)
class Ask:
    """Represents what `--ask` serves: the terminal manager, the prompt tool, and the HTTP
    routes (empty over stdio)."""

    manager: TerminalManager
    terminal: str
    tool: ToolInterface
    routes: list[Any]


class AskSetupError(Exception):
    """Represents `--ask` options that cannot be served as given."""


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def open_ask(options: argparse.Namespace) -> Ask:
    """Builds what `--ask` serves from the parsed options; raises `AskSetupError` for a timeout
    out of range, or for HTTP off loopback without a token."""
    # Imported here so that a command line that never asks loads none of this.
    from orkestrel.mcp.elicitation import ElicitingTerminalManager
    from orkestrel.terminal import create_terminal_manager
    from orkestrel.toolbox import (
        create_prompt_tool,
        create_terminal_page_routes,
        create_terminal_routes,
        starlette_routes,
    )

    seconds = options.ask_timeout
    if not 1 <= seconds <= 86_400:
        raise AskSetupError(f"--ask-timeout must be from 1 to 86400 seconds, got {seconds}")
    http = options.transport == "http"
    token = options.ask_token or None
    if http and token is None and not _loopback(options.host):
        raise AskSetupError(
            f"--ask on {options.host} would let anyone on the network answer forms; "
            f"set --ask-token or ${ASK_TOKEN_VARIABLE}"
        )
    manager = create_terminal_manager(timeout=seconds * 1000)
    manager.add(options.ask_terminal)
    eliciting = ElicitingTerminalManager(manager, terminal=options.ask_terminal, page=http)
    tool = create_prompt_tool(manager=eliciting, from_=ASK_FROM)
    routes: list[Any] = []
    if http:
        records = create_terminal_routes(manager, token=token)
        routes = starlette_routes(records + create_terminal_page_routes())
        _guard_hosts(routes, options.host)
    return Ask(manager, options.ask_terminal, tool, routes)


def _guard_hosts(routes: list[Any], host: str) -> None:
    """Refuses, on loopback, a request whose `Host` is not a loopback name, so a page on
    another site cannot reach the terminal through DNS rebinding."""
    if not _loopback(host):
        return
    from starlette.responses import Response

    for route in routes:
        inner = route.app

        async def guarded(scope: Any, receive: Any, send: Any, inner: Any = inner) -> None:
            headers = dict(scope.get("headers") or [])
            name = headers.get(b"host", b"").decode("latin-1").rsplit(":", 1)[0]
            if scope["type"] == "http" and not _loopback(name):
                await Response("unknown host", status_code=421)(scope, receive, send)
                return
            await inner(scope, receive, send)

        route.app = guarded


def page_url(listening: str, terminal: str) -> str:
    """The answering page's URL, given the MCP endpoint's URL."""
    from orkestrel.toolbox import TERMINAL_ROUTES_PATH

    root = listening.rsplit("/", 1)[0]
    return root + TERMINAL_ROUTES_PATH.replace(":name", terminal) + "/"
