"""`Tool(annotations=...)`: MCP behaviour hints a tool declares, kept out of its definition."""

from __future__ import annotations

from typing import Any

import pytest

from orkestrel.tool import Tool, ToolManager, create_tool, tool_to_definition


def test_annotations_are_none_when_absent_and_kept_by_reference() -> None:
    hints: dict[str, Any] = {"readOnlyHint": True, "destructiveHint": False}
    assert Tool(name="bare", execute=lambda args: None).annotations is None
    assert Tool(name="hinted", execute=lambda args: None, annotations=hints).annotations is hints
    assert create_tool(name="made", execute=lambda args: None, annotations=hints).annotations is (
        hints
    )
    assert create_tool(name="plain", execute=lambda args: None).annotations is None


def test_annotations_never_reach_the_advertised_definition() -> None:
    hints = {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
    tool = create_tool(name="look", summary="Looks.", execute=lambda args: 1, annotations=hints)
    manager = ToolManager()
    manager.add(tool)
    assert tool_to_definition(tool) == {"name": "look", "description": "Looks."}
    assert manager.definitions() == [{"name": "look", "description": "Looks."}]


@pytest.mark.parametrize("value", [["readOnlyHint"], "readOnlyHint", 1, True])
def test_annotations_that_are_not_a_dict_are_refused(value: Any) -> None:
    with pytest.raises(TypeError, match="annotations must be a dict or None"):
        Tool(name="odd", execute=lambda args: None, annotations=value)
