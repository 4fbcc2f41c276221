"""A user's script, type-checked in CI by mypy --strict and pyright strict: the README's idioms
for reading results must check under both, without casts or ignores."""

from __future__ import annotations

from typing import Any, assert_type

from orkestrel.tool import (
    ToolCall,
    ToolFailure,
    ToolManager,
    ToolResult,
    ToolSuccess,
    tool,
)


@tool
def add(left: int, right: int) -> int:
    """Add two numbers."""
    return left + right


assert_type(add(1, 2), int)


def read(result: ToolResult) -> Any:
    # pyright narrows a TypedDict union on `is` (or `==`), not on truthiness, so the README
    # reads `result["success"] is True`; mypy narrows both.
    return result["value"] if result["success"] is True else result["error"]


def message(result: ToolResult) -> str:
    return str(result["value"]) if result["success"] is True else result["error"]


def failed(result: ToolResult) -> str | None:
    if result["success"] is False:
        assert_type(result, ToolFailure)
        return result["error"]
    assert_type(result, ToolSuccess)
    return None


async def main() -> list[str]:
    tools = ToolManager()
    tools.add(add)
    call: ToolCall = {"id": "1", "name": "add", "arguments": {"left": 1, "right": 2}}
    one = await tools.execute(call, timeout=5)
    assert_type(one, ToolResult)
    many = await tools.execute([call, call], limit=2)
    assert_type(many, list[ToolResult])
    return [message(one), *(message(result) for result in many)]
