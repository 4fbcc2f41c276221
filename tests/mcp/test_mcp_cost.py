"""What the tool definitions `orkestrel serve` lists cost in a model's context, by the project's
own `definitions_cost` over name, description and inputSchema: printed per tool, and held to
issue 31's budget (1,000 tokens for the default toolbox, 1,600 with every flag)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from orkestrel.tool import definitions_cost
from support.mcp_client import connect, stdio

pytestmark = pytest.mark.anyio

BUDGETS = {"default": 1000, "every flag": 1600}


def flags(tmp_path: Path, which: str) -> list[str]:
    if which == "default":
        return []
    relations = tmp_path / "relations.toml"
    relations.write_text('[shop.accounts]\ncontacts = ["accountId"]\n')
    agent = ["--agent", "openai:m", "--base-url", "http://127.0.0.1:9/v1"]
    return ["--workflow", "--ask", "--relations", str(relations), *agent]


async def served(tmp_path: Path, which: str) -> list[dict[str, Any]]:
    argv = ["-m", "orkestrel", "serve", "--root", str(tmp_path), "--data", str(tmp_path / "d")]
    async with connect(stdio(sys.executable, [*argv, *flags(tmp_path, which)])) as client:
        listed = await client.list_tools()
    return [
        {key: tool[key] for key in ("name", "description", "inputSchema") if key in tool}
        for tool in listed
    ]


@pytest.mark.parametrize("which", list(BUDGETS))
async def test_the_served_definitions_fit_the_token_budget(tmp_path: Path, which: str) -> None:
    definitions = await served(tmp_path, which)
    cost = definitions_cost(definitions)
    for tool in cost["tools"]:
        print(f"{which}: {tool['name']} {tool['characters']} characters, {tool['tokens']} tokens")
    print(f"{which}: total {cost['characters']} characters, {cost['tokens']} tokens")
    assert cost["tokens"] <= BUDGETS[which]


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
async def test_the_estimate_is_checked_against_exact_token_counts(
    tmp_path: Path, encoding: str
) -> None:
    """The characters / 4 estimate against a real tokenizer (`bpe-openai`, whose wheel holds
    the vocabularies): per tool it may overstate, never understate, and the exact totals fit
    the budget too."""
    bpe = pytest.importorskip("bpe_openai")
    tokenizer = bpe.get_encoding(encoding)
    for which in BUDGETS:
        folder = tmp_path / which.replace(" ", "-")
        folder.mkdir()
        definitions = await served(folder, which)
        estimate = definitions_cost(definitions)
        exact = definitions_cost(definitions, count=lambda text: len(tokenizer.encode(text)))
        for guess, real in zip(estimate["tools"], exact["tools"], strict=True):
            ratio = guess["tokens"] / real["tokens"]
            print(f"{encoding} {which}: {real['name']} {real['tokens']} exact, ratio {ratio:.2f}")
            assert real["tokens"] <= guess["tokens"]
        print(f"{encoding} {which}: total {exact['tokens']} exact, {estimate['tokens']} estimated")
        assert exact["tokens"] <= BUDGETS[which]
