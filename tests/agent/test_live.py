"""The providers against the real services, run only when configured: `ORKESTREL_OPENAI_URL`
(an OpenAI-compatible base URL such as `https://api.openai.com/v1` or a local Ollama's
`http://127.0.0.1:11434/v1`, with `ORKESTREL_OPENAI_MODEL` and `OPENAI_API_KEY` when needed) and
`ORKESTREL_ANTHROPIC_KEY` (with `ORKESTREL_ANTHROPIC_MODEL`). CI has no outside network, so they
skip there."""

from __future__ import annotations

import os
from typing import Any

import pytest

from orkestrel.agent import create_agent, create_anthropic_provider, create_openai_provider
from orkestrel.tool import ToolManager, create_tool

pytestmark = pytest.mark.anyio

OPENAI_URL = os.environ.get("ORKESTREL_OPENAI_URL")
ANTHROPIC_KEY = os.environ.get("ORKESTREL_ANTHROPIC_KEY")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def adder(calls: list[Any]) -> ToolManager:
    def add(args: Any) -> int:
        calls.append(args)
        return int(args["a"]) + int(args["b"])

    tools = ToolManager()
    tools.add(
        create_tool(
            name="add",
            description="Add two integers and return the sum.",
            parameters={
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
            execute=add,
        )
    )
    return tools


def models() -> list[Any]:
    found: list[Any] = []
    if OPENAI_URL:
        found.append(
            pytest.param(
                lambda: create_openai_provider(
                    model=os.environ.get("ORKESTREL_OPENAI_MODEL", "gpt-4o-mini"),
                    base_url=OPENAI_URL,
                    api_key=os.environ.get("OPENAI_API_KEY"),
                ),
                id="openai",
            )
        )
    if ANTHROPIC_KEY:
        found.append(
            pytest.param(
                lambda: create_anthropic_provider(
                    model=os.environ.get("ORKESTREL_ANTHROPIC_MODEL", "claude-3-5-haiku-latest"),
                    api_key=ANTHROPIC_KEY,
                ),
                id="anthropic",
            )
        )
    return found or [
        pytest.param(
            None,
            marks=pytest.mark.skip(
                reason="set ORKESTREL_OPENAI_URL or ORKESTREL_ANTHROPIC_KEY to run live tests"
            ),
            id="unconfigured",
        )
    ]


@pytest.mark.parametrize("make", models())
async def test_a_live_model_answers_and_calls_a_tool(make: Any) -> None:
    calls: list[Any] = []
    async with make() as provider:
        agent = create_agent(
            provider, system="Use the add tool for arithmetic.", tools=adder(calls), limit=4
        )
        agent.context.messages.add(
            {
                "role": "user",
                "content": "What is 19 + 23? Use the tool, then answer with the number.",
            }
        )
        result = await agent.generate()
    assert calls, "the model called the tool"
    assert "42" in result.content
    assert result.usage is not None
    assert result.usage["total"] > 0
