"""Cost of `@tool`: validating a call's arguments, and rendering definitions for a provider.

Run: `pytest benches/bench_decorator.py` (from the repo root). Compared with what a user would
otherwise write: `pydantic.validate_call` around the same function, and a bare call.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, validate_call

from orkestrel.tool import ToolManager, export, tool


class Address(BaseModel):
    street: str
    number: int


async def place(query: str, limit: int = 10, where: Address | None = None) -> int:
    return limit


ARGS: dict[str, Any] = {"query": "tax", "limit": "7", "where": {"street": "Main", "number": 4}}
decorated = tool(place)
validated = validate_call(place)


@pytest.mark.benchmark(group="one validated call")
def bench_bare_call(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    args = {"query": "tax", "limit": 7, "where": Address(street="Main", number=4)}
    assert benchmark(lambda: loop.run_until_complete(place(**args))) == 7


@pytest.mark.benchmark(group="one validated call")
def bench_pydantic_validate_call(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    assert benchmark(lambda: loop.run_until_complete(validated(**ARGS))) == 7


@pytest.mark.benchmark(group="one validated call")
def bench_tool_execute(benchmark: Any, loop: asyncio.AbstractEventLoop) -> None:
    assert benchmark(lambda: loop.run_until_complete(decorated.execute(ARGS))) == 7


def definitions() -> list[Any]:
    tools = ToolManager()
    for index in range(50):
        tools.add(tool(name=f"place_{index}")(place))
    return tools.definitions()


@pytest.mark.benchmark(group="export 50 definitions")
@pytest.mark.parametrize("provider", ["openai-strict", "gemini", "anthropic"])
def bench_export(benchmark: Any, provider: str) -> None:
    defs = definitions()
    name, strict = provider.removesuffix("-strict"), provider.endswith("-strict")
    result = benchmark(lambda: export(defs, name, strict=strict))  # type: ignore[arg-type]
    assert len(result.tools) == 50
