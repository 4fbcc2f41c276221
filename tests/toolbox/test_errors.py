"""`ToolboxError`: code, context, message-only text, narrowing and flattening by a registry."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import TOOLBOX_ERROR_CODES, ToolboxError, is_toolbox_error


def test_carries_code_context_and_a_message_only_text() -> None:
    error = ToolboxError("DATABASE", "table not found", {"code": "NOT_FOUND"})
    assert (error.code, error.message, error.context) == (
        "DATABASE",
        "table not found",
        {"code": "NOT_FOUND"},
    )
    assert str(error) == "table not found"
    assert ToolboxError("TOOL", "bare").context is None


def test_recovering_a_typed_error() -> None:
    caught: object = None
    try:
        raise ToolboxError("TOOL", "task is required")
    except Exception as error:
        caught = error
    assert is_toolbox_error(caught)
    assert caught.code == "TOOL"
    assert not is_toolbox_error(ValueError("task is required"))
    assert not is_toolbox_error("TOOL")


def test_round_trips_through_pickle() -> None:
    error = pickle.loads(pickle.dumps(ToolboxError("EXPIRE", "too late", {"ms": 5})))
    assert (error.code, str(error), error.context) == ("EXPIRE", "too late", {"ms": 5})


def test_codes_are_the_seed_codes() -> None:
    assert {
        "TOOL",
        "DEPTH",
        "DEADLOCK",
        "EXPIRE",
        "ANSWER",
        "DATABASE",
        "RELATION",
    } == TOOLBOX_ERROR_CODES


@pytest.mark.anyio
async def test_a_registry_flattens_it_to_the_message() -> None:
    def fail(args: dict[str, Any]) -> None:
        raise ToolboxError("TOOL", "malformed call", {"args": args})

    tools = ToolManager()
    tools.add(Tool(name="fail", execute=fail))
    result = await tools.execute({"id": "1", "name": "fail", "arguments": {}})
    assert result == {"id": "1", "name": "fail", "success": False, "error": "malformed call"}
