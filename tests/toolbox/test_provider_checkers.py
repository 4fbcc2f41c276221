"""Every tool the toolbox ships, exported for every provider and judged by that provider's own
checker: the OpenAI Agents SDK's and pydantic-ai's strict-mode checks, `openai`'s and
`anthropic`'s parameter types, `google-genai`'s `FunctionDeclaration`, the MCP SDK's `Tool`.

The tools are enumerated (every `create_*_tool` factory, every tool `orkestrel serve` offers
with its toolbox options off and all on), so a tool added later is checked without touching
this file.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from orkestrel.tool import ToolDefinition, ToolInterface, export, tool, tool_to_definition
from support.checkers import (
    check_anthropic,
    check_gemini,
    check_mcp,
    check_openai,
    check_openai_responses,
)
from support.toolbox import factory_tools, served_tools


class Filter(BaseModel):
    field: str
    extra: dict[str, Any] = {}


@tool
def free_form(
    data: dict,  # type: ignore[type-arg]
    items: list,  # type: ignore[type-arg]
    records: list[dict],  # type: ignore[type-arg]
    counts: dict[str, int] | None = None,
    filters: list[Filter] | None = None,
) -> dict[str, Any]:
    """Take free-form values of every kind a user writes."""
    return {"data": data, "items": items, "records": records, "counts": counts}


def _served() -> list[ToolInterface]:
    async def collect() -> list[ToolInterface]:
        with tempfile.TemporaryDirectory() as folder:
            async with served_tools(Path(folder)) as tools:
                return tools

    return anyio.run(collect)


def _sources() -> list[tuple[str, ToolDefinition]]:
    found = [("factory", tool_to_definition(item)) for item in factory_tools()]
    found += [("served", tool_to_definition(item)) for item in _served()]
    found += [("decorated", tool_to_definition(free_form))]
    return found


SOURCES = _sources()
IDS = [
    f"{source}:{definition['name']}:{index}" for index, (source, definition) in enumerate(SOURCES)
]

Check = Callable[[dict[str, Any]], None]
PROVIDERS: list[tuple[str, bool, Check]] = [
    ("openai", False, lambda rendered: check_openai(rendered, False)),
    ("openai", True, lambda rendered: check_openai(rendered, True)),
    ("openai-responses", False, lambda rendered: check_openai_responses(rendered, False)),
    ("openai-responses", True, lambda rendered: check_openai_responses(rendered, True)),
    ("anthropic", False, check_anthropic),
    ("gemini", False, check_gemini),
    ("mcp", False, check_mcp),
]

PROVIDER_IDS = [f"{name}{'-strict' if strict else ''}" for name, strict, _ in PROVIDERS]


def test_every_source_contributes() -> None:
    names = {(source, definition["name"]) for source, definition in SOURCES}
    for source in ("factory", "served"):
        assert {(source, name) for name in ("infer", "describe", "database", "workspace")} <= names


@pytest.mark.parametrize(("provider", "strict", "check"), PROVIDERS, ids=PROVIDER_IDS)
@pytest.mark.parametrize("source", SOURCES, ids=IDS)
def test_every_tool_passes_the_providers_own_checker(
    source: tuple[str, ToolDefinition], provider: Any, strict: bool, check: Check
) -> None:
    result = export([source[1]], provider, strict=strict)
    (rendered,) = result.tools
    check(rendered)


@pytest.mark.parametrize(("provider", "strict", "check"), PROVIDERS, ids=PROVIDER_IDS)
def test_the_whole_toolbox_exports_at_once(provider: Any, strict: bool, check: Check) -> None:
    definitions = [definition for source, definition in SOURCES if source == "factory"]
    result = export(definitions, provider, strict=strict)
    assert [item.get("name") or item["function"]["name"] for item in result.tools] == [
        definition["name"] for definition in definitions
    ]
    for rendered in result.tools:
        check(rendered)
