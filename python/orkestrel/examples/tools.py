"""Registers three small tools, advertises them, and runs a batch of calls against them.

Run with `python -m orkestrel.examples.tools`.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from orkestrel.tool import ToolCall, create_tool, create_tool_manager


async def main() -> None:
    """Builds a registry, prints its definitions, then executes a batch and prints the results."""

    async def add(args: dict[str, Any]) -> float:
        return float(args["left"]) + float(args["right"])

    def shout(args: dict[str, Any]) -> str:
        return str(args["text"]).upper()

    tools = create_tool_manager()
    tools.add(
        [
            create_tool(
                name="add",
                summary="Add two numbers.",
                description="Add two numbers and return the sum. Example: {left: 2, right: 3} → 5.",
                parameters={
                    "type": "object",
                    "properties": {"left": {"type": "number"}, "right": {"type": "number"}},
                    "required": ["left", "right"],
                },
                execute=add,
            ),
            create_tool(name="shout", description="Upper-case a text.", execute=shout),
        ]
    )
    print(json.dumps(tools.definitions(), indent=2))
    calls: list[ToolCall] = [
        {"id": "1", "name": "add", "arguments": {"left": 2, "right": 3}},
        {"id": "2", "name": "shout", "arguments": {"text": "hello"}},
        {"id": "3", "name": "add", "arguments": {"left": "two"}},
        {"id": "4", "name": "ghost", "arguments": {}},
    ]
    for result in await tools.execute(calls):
        print(json.dumps(result))


if __name__ == "__main__":
    anyio.run(main)
