"""Wire-format pieces both HTTP providers use: checked messages, rendered tools, parsed tool
arguments and usage."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Sequence
from typing import Any

from orkestrel.agent.errors import AgentError, ProviderError
from orkestrel.agent.messages import copy_message
from orkestrel.agent.providers.http import load_json
from orkestrel.agent.types import Message, TokenUsage
from orkestrel.contract import preview
from orkestrel.tool import ExportError, Provider, ToolDefinition, export

_DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+);base64,(?P<data>.*)$", re.DOTALL)


def check_messages(messages: Sequence[Message]) -> list[Message]:
    """Copies the messages of a request, or raises `ProviderError` (`REQUEST`) for one that is
    not well formed."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise ProviderError("REQUEST", "messages must be a list of messages")
    checked: list[Message] = []
    for index, message in enumerate(messages):
        try:
            checked.append(copy_message(message))
        except AgentError as error:
            raise ProviderError("REQUEST", f"message {index}: {error.message}") from None
    return checked


def render_tools(tools: Sequence[ToolDefinition] | None, provider: Provider) -> list[Any] | None:
    """The tool list of a request, rendered by `orkestrel.tool.export` for the provider, or
    `None` for no tools; a definition the provider refuses raises `ProviderError` (`REQUEST`)."""
    if not tools:
        return None
    try:
        return export(list(tools), provider).tools
    except ExportError as error:
        raise ProviderError("REQUEST", f"tools cannot be sent: {error}") from None


def split_data_url(url: str) -> tuple[str, str] | None:
    """The MIME type and base64 data of a `data:` URL, or `None` for any other URL."""
    match = _DATA_URL.match(url)
    if match is None:
        return None
    data = match.group("data")
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ProviderError("REQUEST", "an image data URL does not hold valid base64") from None
    return match.group("mime"), data


def parse_arguments(raw: Any, id: str) -> dict[str, Any]:
    """The arguments of a tool call: a JSON object as text (empty text is `{}`) or as an object;
    anything else raises `ProviderError` (`PROTOCOL`)."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        raw = load_json(raw, f"the arguments of tool call '{id}'")
    if not isinstance(raw, dict):
        raise ProviderError(
            "PROTOCOL",
            f"tool call '{id}' has arguments that are not a JSON object: {preview(raw)}",
            {"call": id},
        )
    return raw


def tool_id(raw: Any, index: int) -> str:
    """The id of a tool call, or `ProviderError` (`PROTOCOL`) when it has none."""
    if not isinstance(raw, str) or not raw:
        raise ProviderError("PROTOCOL", f"tool call {index} has no id", {"index": index})
    return raw


def tool_name(raw: Any, id: str) -> str:
    """The name of a tool call, or `ProviderError` (`PROTOCOL`) when it has none."""
    if not isinstance(raw, str) or not raw:
        raise ProviderError("PROTOCOL", f"tool call '{id}' has no name", {"call": id})
    return raw


def _count(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return value


def usage_of(prompt: Any, completion: Any, total: Any = None) -> TokenUsage | None:
    """A `TokenUsage` from a backend's counts (the total summed when absent), or `None` when the
    counts are missing or not numbers."""
    first, second = _count(prompt), _count(completion)
    if first is None or second is None:
        return None
    whole = _count(total)
    return {
        "prompt": first,
        "completion": second,
        "total": first + second if whole is None else whole,
    }


def check_role(role: Any) -> None:
    """Refuses a response whose message role is present and not `assistant` (`PROTOCOL`)."""
    if role is not None and role != "assistant":
        raise ProviderError(
            "PROTOCOL",
            f"unknown message role in the response: {preview(role)}",
            {"role": preview(role)},
        )
