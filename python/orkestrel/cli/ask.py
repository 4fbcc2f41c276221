"""`orkestrel serve --ask`: the prompt tool, a terminal for the person at the client, and over
HTTP the terminal routes and the answering page beside the MCP endpoint."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from orkestrel.cli.arguments import positive_int
from orkestrel.cli.hints import annotate

if TYPE_CHECKING:
    from orkestrel.mcp.http import RouteAccess
    from orkestrel.terminal import TerminalManager
    from orkestrel.tool import ToolContext, ToolInterface

ASK_TERMINAL = "user"
"""The terminal `--ask` mounts for the person at the client, unless `--ask-terminal` names
another."""

ASK_FROM = "model"
"""The terminal the prompt tool asks from: the model's side."""


@dataclass(frozen=True, slots=True)
class Asker:
    """Represents the caller context a served sub-agent calls `ask` with: who is asking, which
    the person sees as the form's sender in place of `ASK_FROM`. Only the served agent tool
    asserts it; a call from an MCP client or a model never carries one."""

    name: str


def asking(tool: ToolInterface, name: str) -> ToolInterface:
    """The same `ask` tool, called as `name` whoever calls it."""
    context = Asker(name)

    async def execute(args: Any) -> Any:
        return await tool.execute(args, context)

    return annotate(tool, execute=execute)


ASK_TOKEN_VARIABLE = "ORKESTREL_ASK_TOKEN"
"""The environment variable `--ask-token` defaults to."""

ASK_TIMEOUT_SECONDS = 300
"""How long a form waits for an answer unless `--ask-timeout` says otherwise."""

ASK_MAX_FORMS = 100
"""How many forms may wait on the terminal at once unless `--ask-max-forms` says otherwise."""

ASK_MAX_FORM_BYTES = 262_144
"""The longest form schema, in bytes of JSON, unless `--ask-max-form-bytes` says otherwise."""

ASK_STREAM_BUFFER = 1_048_576
"""The most bytes an answering page's stream holds unsent before it is dropped, unless
`--ask-stream-buffer` says otherwise."""


def add_ask_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds `--ask`, `--ask-terminal`, `--ask-token`, `--ask-timeout`, the bounds on forms and
    page streams, and `--ask-frame-ancestor` to `serve`."""
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
        help="a token for the answering page, sent in x-orkestrel-token, that answers forms "
        f"but calls no tool (default: ${ASK_TOKEN_VARIABLE}); the page takes the --token "
        "bearer token too",
    )
    parser.add_argument(
        "--ask-timeout",
        type=int,
        default=ASK_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help=f"how long a form waits for an answer (default: {ASK_TIMEOUT_SECONDS})",
    )
    for flag, default, meaning in (
        ("--ask-max-forms", ASK_MAX_FORMS, "forms waiting on the terminal at once at most"),
        ("--ask-max-form-bytes", ASK_MAX_FORM_BYTES, "the longest form schema, in bytes of JSON"),
        (
            "--ask-stream-buffer",
            ASK_STREAM_BUFFER,
            "bytes a page's stream may hold unsent; past it the stream is dropped and the page "
            "reconnects",
        ),
    ):
        parser.add_argument(
            flag,
            type=positive_int,
            default=default,
            metavar="N",
            help=f"{meaning} (default: {default})",
        )
    parser.add_argument(
        "--ask-frame-ancestor",
        action="append",
        default=[],
        metavar="SOURCE",
        help="a page allowed to frame the answering page, as a CSP source such as "
        "https://host.example (repeatable; default: none, the page refuses to be framed)",
    )


@dataclass(frozen=True)
class Ask:
    """Represents what `--ask` serves: the terminal manager, the prompt tool, and over HTTP
    the routes to mount beside `/mcp` with how a browser passes the guard to reach them (the
    page's files need no token; the stream and answer routes take one in
    `x-orkestrel-token`)."""

    manager: TerminalManager
    terminal: str
    tool: ToolInterface
    routes: list[Any] = field(default_factory=list)
    access: list[RouteAccess] = field(default_factory=list)


class AskSetupError(Exception):
    """Represents `--ask` options that cannot be served as given."""


def open_ask(options: argparse.Namespace, token: str | None = None) -> Ask:
    """Builds what `--ask` serves from the parsed options and the server's bearer `token`;
    raises `AskSetupError` for a timeout out of range, or for HTTP off loopback with no token
    at all.

    The terminal routes are built without a token of their own: the server's guard checks it
    in front of them, accepting the bearer token, or `--ask-token` or the bearer token in
    `x-orkestrel-token` (what the page sends).
    """
    # Deferred for start-up time: a command line that never asks loads none of this.
    from orkestrel.cli.ask_view import ask_view
    from orkestrel.mcp.apps import AppTool
    from orkestrel.mcp.elicitation import ElicitingTerminalManager
    from orkestrel.mcp.http import RouteAccess, is_loopback
    from orkestrel.terminal import HEADER_TOKEN, create_terminal_manager
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
    tokens = tuple(dict.fromkeys(t for t in (options.ask_token or None, token) if t))
    if http and not tokens and not is_loopback(options.host):
        raise AskSetupError(
            f"--ask on {options.host} would let anyone on the network answer forms; "
            f"set --token or --ask-token (${ASK_TOKEN_VARIABLE})"
        )
    manager = create_terminal_manager(
        timeout=seconds * 1000, cap=options.ask_max_forms, max_bytes=options.ask_max_form_bytes
    )
    manager.add(options.ask_terminal)
    limits = {"cap": "--ask-max-forms", "max_bytes": "--ask-max-form-bytes"}
    eliciting = ElicitingTerminalManager(
        manager, terminal=options.ask_terminal, page=http, limits=limits
    )
    asked = create_prompt_tool(manager=eliciting, from_=ASK_FROM)

    async def ask(args: Any, caller: Any = None) -> Any:
        endpoint = getattr(caller, "endpoint", None)
        to = args.get("to") if isinstance(args, dict) else None
        if http and isinstance(endpoint, str) and to == options.ask_terminal:
            page = page_url(endpoint, options.ask_terminal)
            return await _paged(asked, args, caller, page, repr(options.ask_terminal), seconds)
        if not isinstance(caller, Asker):
            return await asked.execute(args)
        return await create_prompt_tool(manager=eliciting, from_=caller.name).execute(args)

    tool = AppTool(annotate(asked, execute=ask), ask_view(eliciting))
    if not http:
        return Ask(manager, options.ask_terminal, tool)
    calls = starlette_routes(create_terminal_routes(manager, buffer=options.ask_stream_buffer))
    try:
        files = create_terminal_page_routes(frame_ancestors=options.ask_frame_ancestor)
    except ValueError as error:
        raise AskSetupError(f"--ask-frame-ancestor: {error}") from None
    page = starlette_routes(files)
    access = [
        RouteAccess(routes=tuple(page)),
        RouteAccess(routes=tuple(calls), header=HEADER_TOKEN, tokens=tokens),
    ]
    return Ask(manager, options.ask_terminal, tool, [*calls, *page], access)


async def _paged(
    asked: ToolInterface, args: Any, caller: ToolContext, page: str, to: str, seconds: int
) -> Any:
    """Runs a served HTTP call of the prompt tool to the client's terminal, first telling the
    client (a progress message and a `notice` log entry) on which page the person answers,
    and saying it again when the form expires."""
    # Deferred for start-up time: the toolbox loads only when `--ask` is served.
    from orkestrel.toolbox import ToolboxError

    told = f"the person at {to} answers this form on the page {page} (within {seconds} s)"
    await caller.report_progress(0, None, told)
    await caller.log("notice", told)
    try:
        return await asked.execute(args)
    except ToolboxError as error:
        if error.code != "EXPIRE":
            raise
        answer = f"{error.message}; the person answers on the page {page}"
        raise ToolboxError("EXPIRE", answer, error.context) from None


def page_url(listening: str, terminal: str) -> str:
    """The answering page's URL, given the MCP endpoint's URL."""
    # Deferred for start-up time: the toolbox loads only when a page is served.
    from orkestrel.toolbox import TERMINAL_ROUTES_PATH

    root = listening.rsplit("/", 1)[0]
    return root + TERMINAL_ROUTES_PATH.replace(":name", terminal) + "/"
