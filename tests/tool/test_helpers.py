"""`tool_to_definition`: summary preference, omitted keys, key order, identity, freshness."""

from __future__ import annotations

from typing import Any

from orkestrel.tool import Tool, tool_to_definition


def test_projection_prefers_the_summary_and_keeps_key_order() -> None:
    schema: dict[str, Any] = {"type": "object"}
    tool = Tool(name="t", execute=print, description="long", summary="short", parameters=schema)
    definition = tool_to_definition(tool)
    assert definition == {"name": "t", "description": "short", "parameters": schema}
    assert list(definition) == ["name", "description", "parameters"]
    assert definition["parameters"] is schema


def test_projection_falls_back_to_the_description_and_omits_absent_keys() -> None:
    assert tool_to_definition(Tool(name="t", execute=print, description="long")) == {
        "name": "t",
        "description": "long",
    }
    assert tool_to_definition(Tool(name="t", execute=print)) == {"name": "t"}


def test_each_projection_is_a_fresh_dict() -> None:
    tool = Tool(name="t", execute=print)
    assert tool_to_definition(tool) is not tool_to_definition(tool)


def test_an_empty_summary_still_wins() -> None:
    assert tool_to_definition(Tool(name="t", execute=print, description="d", summary="")) == {
        "name": "t",
        "description": "",
    }
