"""Every toolbox tool that has a summary points at describe for its full instructions."""

from __future__ import annotations

from orkestrel.agent import create_agent_registry
from orkestrel.tool import Tool, ToolManager
from orkestrel.toolbox import (
    create_agent_tool,
    create_database_tool,
    create_describe_tool,
    create_infer_tool,
    create_workflow_tool,
    create_workspace_tool,
)
from orkestrel.workflow import create_workflow_runner


def toolbox_tools() -> list[Tool]:
    return [
        create_infer_tool(),
        create_describe_tool(ToolManager()),
        create_database_tool(),
        create_workspace_tool(),
        create_agent_tool(create_agent_registry(providers={})),
        create_agent_tool(create_agent_registry(providers={}), name="delegate"),
        create_workflow_tool(
            {"id": "w", "name": "W", "phases": []}, create_workflow_runner(), functions={"f": print}
        ),
    ]


def test_summaries_point_at_describe() -> None:
    for tool in toolbox_tools():
        assert tool.summary is not None
        assert "describe('" in tool.summary, tool.name
        if tool.name != "describe":
            assert f"describe('{tool.name}')" in tool.summary, tool.name
        assert tool.description is not None
        assert len(tool.summary) < len(tool.description)
