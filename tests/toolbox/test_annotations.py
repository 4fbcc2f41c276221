"""Each toolbox tool declares the MCP annotations that describe its side effects."""

from __future__ import annotations

from orkestrel.tool import ToolManager, tool_to_definition
from orkestrel.toolbox import (
    create_database_tool,
    create_describe_tool,
    create_endpoint_tool,
    create_infer_tool,
    create_relation_tool,
    create_workflow_tool,
    create_workspace_tool,
)
from orkestrel.workflow import create_workflow_runner


def test_pure_tools_are_read_only_and_idempotent() -> None:
    for tool in (create_infer_tool(), create_describe_tool(ToolManager())):
        assert tool.annotations is not None
        assert tool.annotations["readOnlyHint"] is True
        assert tool.annotations["idempotentHint"] is True


def test_the_database_tool_follows_its_readonly_option() -> None:
    writer = create_database_tool()
    reader = create_database_tool(readonly=True)
    assert writer.annotations is not None
    assert reader.annotations is not None
    assert (writer.annotations["readOnlyHint"], writer.annotations["destructiveHint"]) == (
        False,
        True,
    )
    assert reader.annotations["readOnlyHint"] is True
    assert "destructiveHint" not in reader.annotations


def test_the_workspace_tool_may_destroy_what_it_edits() -> None:
    tool = create_workspace_tool()
    assert tool.annotations is not None
    assert tool.annotations["destructiveHint"] is True


def test_the_relation_tool_writes_but_repeats_safely() -> None:
    tool = create_relation_tool(managers={})
    assert tool.annotations is not None
    assert tool.annotations["readOnlyHint"] is False
    assert tool.annotations["destructiveHint"] is True
    assert tool.annotations["idempotentHint"] is True


def test_the_workflow_tool_runs_arbitrary_code_in_an_open_world() -> None:
    tool = create_workflow_tool({"id": "w", "name": "W", "phases": []}, create_workflow_runner())
    assert tool.annotations is not None
    assert tool.annotations["destructiveHint"] is True
    assert tool.annotations["openWorldHint"] is True


def test_annotations_are_per_tool_and_never_advertised() -> None:
    first, second = create_infer_tool(), create_infer_tool()
    assert first.annotations is not None
    assert second.annotations is not None
    first.annotations["readOnlyHint"] = False
    assert second.annotations["readOnlyHint"] is True
    assert "annotations" not in tool_to_definition(second)


def test_an_endpoint_declares_nothing_it_cannot_know() -> None:
    tool = create_endpoint_tool(
        {"name": "e", "description": "e", "samples": [{"a": 1}], "execute": print}
    )
    assert tool.annotations is None
