"""The constructor-free way to build brokers, managers and clients."""

from __future__ import annotations

from typing import Unpack

from orkestrel.terminal.client import PromptClient
from orkestrel.terminal.manager import TerminalManager
from orkestrel.terminal.prompt import Prompt
from orkestrel.terminal.types import PromptClientOptions, PromptOptions, TerminalManagerOptions


def create_prompt(**options: Unpack[PromptOptions]) -> Prompt:
    """Creates a broker whose parked forms expire after `timeout` ms through `timer`, holding
    at most `cap` forms at once, each a schema of at most `max_bytes` bytes of JSON (no limit
    when `None`)."""
    return Prompt(**options)


def create_terminal_manager(**options: Unpack[TerminalManagerOptions]) -> TerminalManager:
    """Creates an empty terminal manager; `timeout`, `timer` and `cap` are the defaults of the
    terminals it mounts, each of which `add` may override, and `max_bytes` caps every
    terminal's forms."""
    return TerminalManager(**options)


def create_prompt_client(**options: Unpack[PromptClientOptions]) -> PromptClient:
    """Creates a client that answers the forms of the terminal stream at `url` through a local
    `terminal`, presenting `token` in the `x-orkestrel-token` header; needs `httpx`."""
    return PromptClient(**options)
