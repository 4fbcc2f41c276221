"""`definitions_cost` and `estimate_tokens`: what advertised definitions cost in a context."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.tool import (
    ExportError,
    ToolManager,
    definitions_cost,
    estimate_tokens,
    export,
    tool,
    tool_to_definition,
)


@tool
def search(query: str, limit: int = 10) -> list[str]:
    """Search the document index.

    Matches words anywhere in a document and ranks documents by how often the words occur,
    newest first on ties. Use short queries of one to three words; quotes are not supported.
    Example: search("invoice 2024", limit=5).

    Args:
        query: Words to look for.
        limit: The most documents to return.
    """
    return []


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("abcd", 1), ("abcde", 2), ("é" * 8, 2)])
def test_estimate_is_characters_over_four_rounded_up(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_cost_measures_compact_json_per_tool_and_in_total() -> None:
    tools = ToolManager()
    tools.add(search)
    definitions = tools.definitions()
    cost = definitions_cost(definitions)
    text = json.dumps(definitions[0], separators=(",", ":"), ensure_ascii=False)
    assert cost == {
        "characters": len(text),
        "tokens": estimate_tokens(text),
        "tools": [{"name": "search", "characters": len(text), "tokens": estimate_tokens(text)}],
    }


def test_lean_summaries_cost_less_than_full_descriptions() -> None:
    tools = ToolManager()
    tools.add(search)
    lean = definitions_cost(tools.definitions())
    full = definitions_cost([{**tool_to_definition(search), "description": search.description}])  # type: ignore[typeddict-item]
    assert search.summary == "Search the document index."
    assert lean["tokens"] < full["tokens"]
    saved = len(json.dumps(search.description)) - len(json.dumps(search.summary))
    assert full["characters"] - lean["characters"] == saved


def test_a_provider_measures_the_rendered_form() -> None:
    definitions = [tool_to_definition(search)]
    for provider in ("openai", "anthropic", "gemini", "mcp"):
        rendered = export(definitions, provider).tools  # type: ignore[arg-type]
        cost = definitions_cost(definitions, provider=provider)  # type: ignore[arg-type]
        assert cost["characters"] == sum(
            len(json.dumps(item, separators=(",", ":"), ensure_ascii=False)) for item in rendered
        )
        assert [item["name"] for item in cost["tools"]] == ["search"]


def test_an_exact_counter_can_replace_the_estimate() -> None:
    seen: list[str] = []

    def count(text: str) -> int:
        seen.append(text)
        return len(text.split('"'))

    cost = definitions_cost([tool_to_definition(search)], count=count)
    assert cost["tokens"] == len(seen[0].split('"'))


def test_bad_input_is_a_typed_error() -> None:
    with pytest.raises(ExportError, match="list"):
        definitions_cost("search")  # type: ignore[arg-type]
    with pytest.raises(ExportError, match="not JSON data"):
        definitions_cost([{"name": "x", "parameters": {"a": {1, 2}}}])  # type: ignore[list-item]
    looped: dict[str, Any] = {"name": "x"}
    looped["parameters"] = looped
    with pytest.raises(ExportError, match="not JSON data"):
        definitions_cost([looped])  # type: ignore[list-item]
    with pytest.raises(ExportError, match="unknown provider"):
        definitions_cost([], provider="x")  # type: ignore[arg-type]


@given(st.lists(st.text(max_size=30), max_size=5))
def test_totals_are_the_sums_and_grow_with_the_text(descriptions: list[str]) -> None:
    definitions = [{"name": f"t{i}", "description": text} for i, text in enumerate(descriptions)]
    cost = definitions_cost(definitions)  # type: ignore[arg-type]
    assert cost["characters"] == sum(item["characters"] for item in cost["tools"])
    assert cost["tokens"] == sum(item["tokens"] for item in cost["tools"])
    longer = definitions_cost(
        [{**item, "description": item["description"] + "x"} for item in definitions]
    )  # type: ignore[arg-type]
    assert longer["characters"] == cost["characters"] + len(definitions)
