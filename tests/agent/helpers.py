"""What the provider tests share: a weather tool, a user message, a live signal, and readers of
a provider stream."""

from __future__ import annotations

from typing import Any

from orkestrel.abort import AbortController, AbortSignal
from orkestrel.agent import Message, ProviderDelta, ProviderResult
from orkestrel.tool import ToolDefinition

WEATHER: ToolDefinition = {
    "name": "weather",
    "description": "Look up the weather.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def user(text: str) -> Message:
    return {"id": "u1", "role": "user", "content": text}


def live() -> AbortSignal:
    return AbortController().signal


async def consume(stream: Any) -> tuple[list[ProviderDelta], ProviderResult]:
    """Every delta of a stream, then its result."""
    deltas = [delta async for delta in stream]
    return deltas, stream.result


async def read_until(
    stream: Any, text: str, controller: AbortController, reason: Any = None
) -> None:
    """Reads a stream, aborting once the text so far is `text`."""
    seen = ""
    async for delta in stream:
        seen += delta["text"]
        if seen == text:
            controller.abort(reason)
