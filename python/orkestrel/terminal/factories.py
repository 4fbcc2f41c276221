"""The constructor-free way to build brokers, managers and clients."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orkestrel.terminal.client import PromptClient
from orkestrel.terminal.constants import DEFAULT_PROMPT_TIMEOUT_MS, DEFAULT_RECONNECT_MS
from orkestrel.terminal.manager import TerminalManager
from orkestrel.terminal.prompt import Prompt
from orkestrel.terminal.timers import default_timer
from orkestrel.terminal.types import TerminalInterface, TimerHandler

if TYPE_CHECKING:
    import httpx


def create_prompt(
    *,
    timeout: int = DEFAULT_PROMPT_TIMEOUT_MS,
    timer: TimerHandler = default_timer,
    cap: int | None = None,
    max_bytes: int | None = None,
) -> Prompt:
    """Creates a broker whose parked forms expire after `timeout` ms through `timer`, holding
    at most `cap` forms at once, each a schema of at most `max_bytes` bytes of JSON (no limit
    when `None`)."""
    return Prompt(timeout=timeout, timer=timer, cap=cap, max_bytes=max_bytes)


def create_terminal_manager(
    *,
    timeout: int | None = None,
    timer: TimerHandler | None = None,
    cap: int | None = None,
    max_bytes: int | None = None,
) -> TerminalManager:
    """Creates an empty terminal manager; `timeout`, `timer` and `cap` are the defaults of the
    terminals it mounts, each of which `add` may override, and `max_bytes` caps every
    terminal's forms."""
    return TerminalManager(timeout=timeout, timer=timer, cap=cap, max_bytes=max_bytes)


def create_prompt_client(
    *,
    url: str,
    terminal: TerminalInterface,
    token: str | None = None,
    reconnect: bool = True,
    delay: int = DEFAULT_RECONNECT_MS,
    client: httpx.AsyncClient | None = None,
) -> PromptClient:
    """Creates a client that answers the forms of the terminal stream at `url` through a local
    `terminal`, presenting `token` in the `x-orkestrel-token` header; needs `httpx`."""
    return PromptClient(
        url=url, terminal=terminal, token=token, reconnect=reconnect, delay=delay, client=client
    )
