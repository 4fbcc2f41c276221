"""The endpoint tool: inferred parameters enforced by a normalizing parse."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.tool import ToolManager
from orkestrel.toolbox import ToolboxError, create_endpoint_tool

pytestmark = pytest.mark.anyio


def users(**options: Any) -> tuple[Any, list[dict[str, Any]]]:
    received: list[dict[str, Any]] = []

    async def lookup(args: dict[str, Any]) -> dict[str, Any]:
        received.append(args)
        return {"id": args["id"], "name": "Ada"}

    tool = create_endpoint_tool(
        {
            "name": "lookupUser",
            "description": "Look up a user by id.",
            "samples": [{"id": "1", "name": "Ada"}, {"id": "2", "name": "Bob"}],
            "execute": lookup,
        },
        **options,
    )
    return tool, received


async def test_bridges_the_seed_example_through_a_registry() -> None:
    tool, received = users()
    tools = ToolManager()
    tools.add(tool)
    result = await tools.execute(
        {"id": "call-1", "name": "lookupUser", "arguments": {"id": "1", "name": "Ada"}}
    )
    assert result == {
        "id": "call-1",
        "name": "lookupUser",
        "success": True,
        "value": {"id": "1", "name": "Ada"},
    }
    assert (tool.name, tool.description, tool.summary) == (
        "lookupUser",
        "Look up a user by id.",
        None,
    )
    assert tool.parameters == {
        "type": "object",
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
        "required": ["id", "name"],
        "additionalProperties": False,
    }
    assert received == [{"id": "1", "name": "Ada"}]


async def test_values_are_coerced_and_unknown_keys_dropped() -> None:
    tool, received = users()
    await tool.execute({"id": 7, "name": "Ada", "admin": True})
    assert received == [{"id": "7", "name": "Ada"}]


async def test_a_call_that_cannot_be_parsed_never_reaches_the_handler() -> None:
    tool, received = users()
    with pytest.raises(ToolboxError, match="malformed endpoint call arguments") as caught:
        await tool.execute({"id": "1"})
    assert caught.value.code == "TOOL"
    assert caught.value.context == {
        "name": "lookupUser",
        "faults": [{"reason": "missing", "path": ["name"], "expected": "string"}],
    }
    assert received == []
    tools = ToolManager()
    tools.add(tool)
    result = await tools.execute(
        {"id": "1", "name": "lookupUser", "arguments": {"id": True, "name": "x"}}
    )
    assert result == {
        "id": "1",
        "name": "lookupUser",
        "success": False,
        "error": "malformed endpoint call arguments",
    }


async def test_enum_inference_refuses_values_outside_the_enum() -> None:
    seen: list[Any] = []
    tool = create_endpoint_tool(
        {
            "name": "paint",
            "description": "Paint a wall.",
            "samples": [{"colour": "red"}, {"colour": "red"}, {"colour": "blue"}],
            "execute": seen.append,
        },
        enum=True,
    )
    assert tool.parameters is not None
    assert tool.parameters["properties"]["colour"] == {"enum": ["blue", "red"]}
    await tool.execute({"colour": " blue "})
    with pytest.raises(ToolboxError) as caught:
        await tool.execute({"colour": "green"})
    assert caught.value.context is not None
    assert caught.value.context["faults"] == [
        {"reason": "type", "path": ["colour"], "expected": "literal", "received": '"green"'}
    ]
    assert seen == [{"colour": "blue"}]


async def test_integer_slots_take_whole_numbers_only() -> None:
    seen: list[Any] = []
    tool = create_endpoint_tool(
        {
            "name": "page",
            "description": "Fetch a page.",
            "samples": [{"page": 1}, {"page": 2}],
            "execute": seen.append,
        }
    )
    await tool.execute({"page": "7"})
    await tool.execute({"page": 3.0})
    with pytest.raises(ToolboxError):
        await tool.execute({"page": 1.5})
    assert seen == [{"page": 7}, {"page": 3.0}]


async def test_validate_false_passes_arguments_through_untouched() -> None:
    tool, received = users(validate=False)
    args = {"id": 7, "anything": [1]}
    await tool.execute(args)
    assert received[0] is args


async def test_sync_handlers_work_too() -> None:
    tool = create_endpoint_tool(
        {
            "name": "echo",
            "description": "Echo.",
            "samples": [{"text": "a"}],
            "execute": lambda args: args["text"] * 2,
        }
    )
    assert await tool.execute({"text": "ab"}) == "abab"


async def test_a_handler_error_propagates_as_is() -> None:
    def broken(args: dict[str, Any]) -> None:
        raise LookupError("upstream said no")

    tool = create_endpoint_tool(
        {"name": "x", "description": "x", "samples": [{"a": 1}], "execute": broken}
    )
    with pytest.raises(LookupError, match="upstream said no"):
        await tool.execute({"a": 1})


@pytest.mark.parametrize("samples", [[], "x", None])
def test_an_endpoint_needs_samples(samples: Any) -> None:
    with pytest.raises(ToolboxError, match="endpoint requires at least one sample") as caught:
        create_endpoint_tool(
            {"name": "x", "description": "x", "samples": samples, "execute": print}
        )
    assert caught.value.context == {"name": "x"}
