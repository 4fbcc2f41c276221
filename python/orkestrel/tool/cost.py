"""Estimating what a set of tool definitions costs in a model's context, in characters and tokens.

Method: each definition is serialized as compact JSON (`separators=(",", ":")`, non-ASCII kept
as is), which is the form a provider receives it in, and its characters are counted. Tokens are
estimated as `ceil(characters / 4)`, the common rule of about four characters per token of
English text. Providers re-render definitions into their own prompt format, so the figure is an
estimate for comparing definitions, not a bill: on what `orkestrel serve` lists it comes out
2-19% above the exact `o200k_base` and `cl100k_base` counts per tool (5-10% in total), never
below them (`tests/mcp/test_mcp_cost.py` checks it with `bpe-openai`). Pass `count=` with a real
tokenizer (e.g. `lambda text: len(encoding.encode(text))`) for exact figures.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any, TypedDict

from orkestrel.tool.errors import ExportError
from orkestrel.tool.export import Provider, export
from orkestrel.tool.types import ToolDefinition

CHARACTERS_PER_TOKEN = 4
"""The divisor `estimate_tokens` uses: about four characters of English text per token."""


class ToolCost(TypedDict):
    """Reports what one tool definition costs."""

    name: str
    characters: int
    tokens: int


class DefinitionsCost(TypedDict):
    """Reports what a set of tool definitions costs, in total and per tool."""

    characters: int
    tokens: int
    tools: list[ToolCost]


def estimate_tokens(text: str) -> int:
    """Estimates how many tokens a text costs, as `ceil(len(text) / 4)`."""
    return math.ceil(len(text) / CHARACTERS_PER_TOKEN)


def definitions_cost(
    definitions: Sequence[ToolDefinition] | Sequence[dict[str, Any]],
    *,
    provider: Provider | None = None,
    count: Callable[[str], int] | None = None,
) -> DefinitionsCost:
    """Estimates the characters and tokens a set of tool definitions costs in a model's context.

    With `provider`, the definitions are measured as `export` renders them for that provider;
    without, as given (e.g. `manager.definitions()`). `count` replaces the token estimate with
    an exact tokenizer. The totals are the sums over the tools.
    """
    items: Sequence[Any] = definitions
    if provider is not None:
        items = export(definitions, provider).tools  # type: ignore[arg-type]
    elif isinstance(definitions, str | bytes) or not isinstance(definitions, Sequence):
        raise ExportError("definitions must be a list of tool definitions")
    measure = count if count is not None else estimate_tokens
    tools: list[ToolCost] = []
    for index, item in enumerate(items):
        try:
            text = json.dumps(item, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as error:
            raise ExportError(f"definition {index} is not JSON data ({error})") from None
        tools.append({"name": _name(item), "characters": len(text), "tokens": measure(text)})
    return {
        "characters": sum(tool["characters"] for tool in tools),
        "tokens": sum(tool["tokens"] for tool in tools),
        "tools": tools,
    }


def _name(item: Any) -> str:
    if isinstance(item, dict):
        inner = item.get("function")
        name = inner.get("name") if isinstance(inner, dict) else item.get("name")
        if isinstance(name, str):
            return name
    return ""
