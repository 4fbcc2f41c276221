"""`orkestrel serve --workflow` as a real process under the SDK's own client: a model authors a
workflow whose steps call the other served tools, and the run is kept under `--data`."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.cli.builtins import builtin_factories
from orkestrel.cli.workflow import SERVED_DESCRIPTION, WORKFLOWS_FILE, open_workflow_store
from orkestrel.toolbox import WORKFLOW_TOOL_SUMMARY
from support.mcp_client import MODES, Session, connect, stdio
from support.mcp_client import text as only_text

pytestmark = pytest.mark.anyio

SHOP = {"items": {"columns": {"name": "string"}}}


@asynccontextmanager
async def serve(tmp_path: Path, *extra: str, mode: str | None = None) -> AsyncIterator[Session]:
    argv = [
        "serve",
        "--workflow",
        "--root",
        str(tmp_path / "root"),
        "--data",
        str(tmp_path / "data"),
        *extra,
    ]
    async with connect(stdio(sys.executable, ["-m", "orkestrel", *argv]), mode=mode) as client:
        yield client


def _one_failure(database: str) -> dict[str, Any]:
    failure = {"task": "phase-0-task-0", "origin": "handler"}
    failure["message"] = f"unknown database '{database}'"
    return {"status": "completed", "count": 1, "failed": 1, "failures": [failure], "durable": True}


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
    assert sorted(listed["workflow"]["inputSchema"]["properties"]) == [
        "bail",
        "limit",
        "name",
        "offset",
        "run",
        "steps",
    ]
    assert only_text(described) == SERVED_DESCRIPTION
    assert (ran.get("isError", False), ran.get("structuredContent")) == (
        False,
        {"status": "completed", "count": 4, "durable": True},
    )
    assert only_text(read) == "# Plan\n"
    assert (tmp_path / "root" / "plan.md").read_text() == "# Plan\n"
    assert rows.get("structuredContent") is not None
    assert rows.get("structuredContent")["rows"] == [{"id": "tea", "name": "Tea"}]
    assert failing.get("structuredContent") == _one_failure("ghost")
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
    assert refused.get("structuredContent")["failed"] == 1
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


STEPS = 300


def _many(count: int) -> list[dict[str, Any]]:
    return [{"name": "infer", "input": {"samples": [{"a": index}]}} for index in range(count)]


async def test_a_300_step_workflow_reports_progress_per_task(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async with serve(tmp_path) as client:
        answer = await client.call_tool(
            "workflow", {"name": "long", "steps": _many(STEPS)}, progress=on_progress
        )
    assert answer.get("isError", False) is False
    assert seen, "no progress reached the client"
    assert len(seen) <= STEPS
    assert [done for done, _, _ in seen] == sorted(done for done, _, _ in seen)
    assert {total for _, total, _ in seen} == {STEPS}
    assert seen[0][0] == 1
    assert seen[-1][0] == STEPS
    assert all(message and f"of {STEPS} tasks settled" in message for _, _, message in seen)


async def test_a_workflow_called_without_a_token_sends_no_progress(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    async with serve(tmp_path) as client:
        answer = await client.call_tool("workflow", {"name": "quiet", "steps": _many(20)})
        sent = [n for n in client.notifications if n["method"] == "notifications/progress"]
    assert answer.get("isError", False) is False
    assert sent == []


def _logged(client: Session) -> list[dict[str, Any]]:
    return [n["params"] for n in client.notifications if n["method"] == "notifications/message"]


MIXED: list[dict[str, Any]] = [
    {"name": "infer", "input": {"samples": [{"a": 1}]}},
    {"name": "database", "input": {"operation": "count", "id": "ghost", "table": "x"}},
]


# The 2.x client warns that `logging/setLevel` is deprecated from the 2026 protocol era on.
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_the_server_declares_logging_and_sends_nothing_below_the_set_level(
    tmp_path: Path,
) -> None:
    (tmp_path / "root").mkdir()
    # `logging/setLevel` is a method of the eras before 2026, which ask for levels per request.
    async with serve(tmp_path, mode=MODES[-1]) as client:
        declared = client.capabilities()
        await client.client.set_logging_level("debug")
        await client.call_tool("workflow", {"name": "loud", "steps": MIXED})
        loud = _logged(client)
        client.notifications.clear()
        await client.client.set_logging_level("warning")
        await client.call_tool("workflow", {"name": "warned", "steps": MIXED})
        warned = _logged(client)
        client.notifications.clear()
        await client.client.set_logging_level("error")
        await client.call_tool("workflow", {"name": "hushed", "steps": MIXED})
        hushed = _logged(client)
    assert declared.get("logging") == {}
    assert [entry["level"] for entry in loud] == ["warning", "info"]
    assert loud[0]["data"] == (
        "workflow 'loud' task 'phase-1-task-0' failed: unknown database 'ghost'"
    )
    assert loud[1]["data"].startswith("workflow 'loud' ended ")
    assert loud[1]["data"].endswith(": 2 tasks settled, 1 failed")
    assert [entry["level"] for entry in warned] == ["warning"]
    assert hushed == []


def _ghost_count(index: int) -> dict[str, Any]:
    return {
        "name": "database",
        "input": {"operation": "count", "id": f"ghost{index}", "table": "x"},
    }


async def test_a_workflow_whose_steps_failed_names_each_failure(tmp_path: Path) -> None:
    async with serve(tmp_path) as client:
        one = await client.call_tool("workflow", {"name": "one", "steps": [_ghost_count(0)]})
        many = await client.call_tool(
            "workflow", {"name": "many", "steps": [_ghost_count(index) for index in range(12)]}
        )
        described = only_text(await client.call_tool("describe", {"name": "workflow"}))
    assert one.get("structuredContent") == _one_failure("ghost0")
    # The model is told that completed is the lifecycle, not a verdict on the tasks.
    assert "completed (every phase ran; tasks may still have failed)" in described
    assert "failures, the first 10 as {task, origin, message}" in described
    answer = many.get("structuredContent")
    assert answer["failed"] == 12
    assert [failure["task"] for failure in answer["failures"]] == [
        f"phase-{index}-task-0" for index in range(10)
    ]
    assert answer["more"] == 2


async def test_a_flat_workflow_accepts_bail_and_answers_failed(tmp_path: Path) -> None:
    async with serve(tmp_path) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        ran = await client.call_tool(
            "workflow",
            {"name": "stop", "bail": True, "steps": [_ghost_count(0), _ghost_count(1)]},
        )
    assert "bail" in listed["workflow"]["inputSchema"]["properties"]
    answer = ran.get("structuredContent")
    assert (answer["status"], answer["count"], answer["failed"]) == ("failed", 1, 1)


async def test_refusals_name_the_path_and_what_was_expected(tmp_path: Path) -> None:
    async with serve(tmp_path) as client:
        flat = await client.call_tool("workflow", {"steps": "nope"})
        infer = await client.call_tool("infer", {"samples": "nope"})
    assert (flat.get("isError", False), only_text(flat)) == (
        True,
        'malformed workflow definition: steps: expected array, received "nope"',
    )
    assert (infer.get("isError", False), only_text(infer)) == (
        True,
        'malformed infer arguments: samples: expected array, received "nope"',
    )


async def test_a_served_call_reads_a_stored_run_by_id_in_pages(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    steps: list[dict[str, Any]] = [
        {"name": "infer", "input": {"samples": [1]}},
        {"name": "database", "input": {"operation": "count", "id": "ghost", "table": "x"}},
        {"name": "infer", "input": {"samples": ["a"]}},
    ]
    async with serve(tmp_path) as client:
        listed = {tool["name"]: tool for tool in await client.list_tools()}
        await client.call_tool("workflow", {"name": "mixed", "steps": steps})
        first = await client.call_tool("workflow", {"run": "mixed", "limit": 2})
        rest = await client.call_tool("workflow", {"run": "mixed", "offset": 2})
        unknown = await client.call_tool("workflow", {"run": "nothing"})
        typo = await client.call_tool("workflow", {"run": "mixed", "limt": 2})
        described = await client.call_tool("describe", {"name": "workflow"})
    properties = listed["workflow"]["inputSchema"]["properties"]
    assert sorted(properties) == ["bail", "limit", "name", "offset", "run", "steps"]
    assert "Read form" in only_text(described)
    page = first.get("structuredContent")
    assert page is not None
    assert (page["run"], page["status"], page["total"], page["offset"], page["more"]) == (
        "mixed",
        "completed",
        3,
        0,
        1,
    )
    assert [(task["task"], task["status"]) for task in page["tasks"]] == [
        ("phase-0-task-0", "completed"),
        ("phase-1-task-0", "failed"),
    ]
    assert page["tasks"][0]["value"]["properties"]["value"]["type"] == "integer"
    assert page["tasks"][1]["error"] == {
        "origin": "handler",
        "message": "unknown database 'ghost'",
    }
    tail = rest.get("structuredContent")
    assert tail is not None
    assert "more" not in tail
    assert [
        (task["task"], task["value"]["properties"]["value"]["type"]) for task in tail["tasks"]
    ] == [("phase-2-task-0", "string")]
    assert (unknown.get("isError", False), only_text(unknown)) == (
        True,
        "run: no stored run 'nothing'",
    )
    assert typo.get("isError", False) is True
    assert "limt" in only_text(typo)
    assert "\n" not in only_text(typo)


async def test_a_run_whose_call_the_client_cancelled_is_stored_as_stopped(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    steps = [{"name": "infer", "input": {"samples": [{"n": n}]}} for n in range(1000)]
    started = anyio.Event()

    async def progress(done: float, total: float | None, message: str | None) -> None:
        started.set()

    async with serve(tmp_path) as client:
        async with anyio.create_task_group() as group:

            async def call() -> None:
                await client.call_tool("workflow", {"name": "long", "steps": steps}, progress)

            group.start_soon(call)
            await started.wait()
            group.cancel_scope.cancel()
        read = await settled(client, "long")
    assert (read["status"], read["total"], read["tasks"][0]["status"]) == (
        "stopped",
        1000,
        "completed",
    )
    assert read["more"] == 999


async def test_a_run_whose_call_timed_out_is_stored_as_stopped(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    steps = [{"name": "infer", "input": {"samples": [{"n": n}]}} for n in range(1000)]
    async with serve(tmp_path, "--timeout", "1") as client:
        timed_out = await client.call_tool("workflow", {"name": "slow", "steps": steps})
        read = await settled(client, "slow")
    assert (timed_out.get("isError", False), only_text(timed_out)) == (
        True,
        "tool timed out after 1000 ms",
    )
    assert (read["status"], read["total"]) == ("stopped", 1000)
    assert read["tasks"][0]["status"] == "completed"


async def settled(client: Session, run: str) -> dict[str, Any]:
    """The first page of stored run `run` once it no longer reads running."""
    read: dict[str, Any] = {}
    with anyio.fail_after(60):
        while read.get("status") in (None, "running"):
            answer = await client.call_tool("workflow", {"run": run, "limit": 1})
            read = answer.get("structuredContent") or {}
            await anyio.sleep(0.05)
    return read
