"""`orkestrel serve --workflow` as a real process under the SDK's own client: a model authors a
workflow whose steps call the other served tools, and the run is kept under `--data`."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from orkestrel.cli.builtins import builtin_factories
from orkestrel.cli.workflow import SERVED_DESCRIPTION, WORKFLOWS_FILE, open_workflow_store
from orkestrel.toolbox import WORKFLOW_TOOL_SUMMARY
from support.mcp_client import Session, connect, stdio
from support.mcp_client import text as only_text

pytestmark = pytest.mark.anyio

SHOP = {"items": {"columns": {"name": "string"}}}


@asynccontextmanager
async def serve(tmp_path: Path, *extra: str) -> AsyncIterator[Session]:
    argv = [
        "serve",
        "--workflow",
        "--root",
        str(tmp_path / "root"),
        "--data",
        str(tmp_path / "data"),
        *extra,
    ]
    async with connect(stdio(sys.executable, ["-m", "orkestrel", *argv])) as client:
        yield client


def test_the_workflow_tool_is_built_only_when_asked_for() -> None:
    assert "workflow" not in builtin_factories()
    assert list(builtin_factories(workflow=True))[-1] == "workflow"


async def test_a_served_workflow_calls_the_other_tools_and_is_kept(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    steps: list[dict[str, Any]] = [
        {
            "name": "workspace",
            "input": {"operation": "write", "path": "plan.md", "content": "# Plan\n"},
        },
        {"name": "database", "input": {"operation": "create", "id": "shop", "tables": SHOP}},
        {
            "name": "database",
            "input": {
                "operation": "add",
                "id": "shop",
                "table": "items",
                "row": {"id": "tea", "name": "Tea"},
            },
        },
        {"name": "infer", "input": {"samples": [{"a": 1}]}},
    ]
    async with serve(tmp_path) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        described = await client.call_tool("describe", {"name": "workflow"})
        ran = await client.call_tool("workflow", {"name": "stock", "steps": steps})
        read = await client.call_tool("workspace", {"operation": "read", "path": "plan.md"})
        rows = await client.call_tool(
            "database", {"operation": "records", "id": "shop", "table": "items"}
        )
        failing = await client.call_tool(
            "workflow",
            {
                "name": "broken",
                "steps": [
                    {
                        "name": "database",
                        "input": {"operation": "count", "id": "ghost", "table": "x"},
                    }
                ],
            },
        )
        ghost = await client.call_tool("workflow", {"steps": [{"name": "ghost"}]})
        reserved = await client.call_tool("workflow", {"steps": [{"name": "workflow"}]})
        malformed = await client.call_tool("workflow", {"steps": [{"name": ""}]})
    assert list(listed)[-1] == "workflow"
    assert listed["workflow"]["description"] == WORKFLOW_TOOL_SUMMARY
    assert sorted(listed["workflow"]["inputSchema"]["properties"]) == ["name", "steps"]
    assert only_text(described) == SERVED_DESCRIPTION
    assert (ran.get("isError", False), ran.get("structuredContent")) == (
        False,
        {"status": "completed", "count": 4, "durable": True},
    )
    assert only_text(read) == "# Plan\n"
    assert (tmp_path / "root" / "plan.md").read_text() == "# Plan\n"
    assert rows.get("structuredContent") is not None
    assert rows.get("structuredContent")["rows"] == [{"id": "tea", "name": "Tea"}]
    assert failing.get("structuredContent") == {"status": "completed", "count": 1, "durable": True}
    assert (ghost.get("isError", False), only_text(ghost)) == (
        True,
        "task 'phase-0-task-0' behavior 'ghost' is not registered",
    )
    assert (reserved.get("isError", False), only_text(reserved)) == (
        True,
        "task 'phase-0-task-0' behavior 'workflow' is not registered",
    )
    assert malformed.get("isError", False) is True
    assert only_text(malformed).startswith("malformed workflow definition: steps/0/name")

    assert (tmp_path / "data" / WORKFLOWS_FILE).exists()
    store = open_workflow_store(tmp_path / "data")
    try:
        stock = await store.get("stock")
        broken = await store.get("broken")
    finally:
        await store.close()
    assert stock is not None
    assert broken is not None
    answers = [phase["tasks"][0]["result"] for phase in stock["phases"]]
    assert answers[1] == {"success": True, "value": {"id": "shop", "tables": ["items"]}}
    assert answers[2] == {"success": True, "value": {"key": "tea"}}
    assert answers[3]["value"]["type"] == "object"
    assert broken["phases"][0]["tasks"][0]["result"] == {
        "success": False,
        "error": {"origin": "handler", "message": "unknown database 'ghost'"},
    }


async def test_a_readonly_server_runs_workflows_and_keeps_nothing(tmp_path: Path) -> None:
    async with serve(tmp_path, "--readonly") as client:
        ran = await client.call_tool(
            "workflow", {"steps": [{"name": "infer", "input": {"samples": [1]}}]}
        )
        refused = await client.call_tool(
            "workflow",
            {
                "steps": [
                    {
                        "name": "workspace",
                        "input": {"operation": "write", "path": "x", "content": "y"},
                    }
                ]
            },
        )
    assert ran.get("structuredContent") == {"status": "completed", "count": 1}
    assert refused.get("structuredContent") == {"status": "completed", "count": 1}
    assert not (tmp_path / "data").exists()
    assert not (tmp_path / "root").exists()


async def test_the_steps_are_the_tools_registered_when_the_call_runs(tmp_path: Path) -> None:
    from orkestrel.cli.toolbox import open_toolbox
    from orkestrel.tool import create_tool

    def clock(context: Any) -> Any:
        return create_tool(name="today", execute=lambda args: {"date": "2024-02-29", **args})

    factories = {**builtin_factories(workflow=True), "clock": clock}
    async with open_toolbox(root=tmp_path, data=tmp_path / "data", builtins=factories) as tools:
        names = [tool.name for tool in tools.tools()]
        steps = [{"name": "today", "input": {"zone": "UTC"}}]
        call = {"id": "1", "name": "workflow", "arguments": {"name": "dated", "steps": steps}}
        result = await tools.execute(call)  # type: ignore[arg-type]
    assert names.index("workflow") < names.index("today")
    assert result["value"] == {"status": "completed", "count": 1, "durable": True}
    store = open_workflow_store(tmp_path / "data")
    try:
        snapshot = await store.get("dated")
    finally:
        await store.close()
    assert snapshot is not None
    assert snapshot["phases"][0]["tasks"][0]["result"] == {
        "success": True,
        "value": {"date": "2024-02-29", "zone": "UTC"},
    }
