"""The 2025-11-25 experimental tasks form (a `task` parameter on `tools/call`, `tasks/get`,
`tasks/result`) on a real `orkestrel serve`, under the official client of either SDK line: the
server declares no `tasks` capability nor the Tasks extension, refuses the form with typed
JSON-RPC errors, and answers the same call without `task` in place, even from a client that
declares the 2026-era extension. On the 1.x line this is every connection: it serves no
tasks."""

from __future__ import annotations

import importlib
import sqlite3
import sys
import warnings
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from orkestrel.mcp.constants import TASKS_EXTENSION
from orkestrel.mcp.sdk import LEGACY_TASK_REFUSED
from orkestrel.mcp.tasks import CLIENT_CAPABILITIES
from support.mcp_client import MAJOR, connect, stdio, wire

pytestmark = pytest.mark.anyio

SERVE = ["-m", "orkestrel", "serve", "--workflow", "--tools", "workspace"]
WORKFLOW = {"name": "legacy", "steps": [{"name": "workspace", "input": {}}]}
REFUSED = {**WORKFLOW, "name": "refused"}
DECLARED = {**WORKFLOW, "name": "declared"}
DECLARES_TASKS = {CLIENT_CAPABILITIES: {"extensions": {TASKS_EXTENSION: {}}}}
"""The request `_meta` by which a 2026-era client declares the Tasks extension."""


def experimental(client: Any) -> Any:
    """The 1.x client's experimental tasks API, which warns that it is deprecated."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return client.experimental


async def call_as_task(client: Any) -> Any:
    """`tools/call` of the workflow with the experimental `task` parameter."""
    if MAJOR < 2:
        return await experimental(client).call_tool_as_task("workflow", REFUSED, ttl=60_000)
    from mcp_types import CallToolRequest, CallToolRequestParams, CallToolResult, TaskMetadata

    params = CallToolRequestParams(
        name="workflow", arguments=WORKFLOW, task=TaskMetadata(ttl=60_000)
    )
    return await client.session.send_request(CallToolRequest(params=params), CallToolResult)


async def get_task(client: Any) -> Any:
    """The experimental `tasks/get`."""
    if MAJOR < 2:
        return await experimental(client).get_task("t-1")
    from mcp_types import GetTaskRequest, GetTaskRequestParams, GetTaskResult

    request = GetTaskRequest(params=GetTaskRequestParams(task_id="t-1"))
    return await client.session.send_request(request, GetTaskResult)


async def task_result(client: Any) -> Any:
    """The experimental `tasks/result`."""
    if MAJOR < 2:
        from mcp import types

        return await experimental(client).get_task_result("t-1", types.CallToolResult)
    from mcp_types import CallToolResult, GetTaskPayloadRequest, GetTaskPayloadRequestParams

    request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id="t-1"))
    return await client.session.send_request(request, CallToolResult)


async def refused(send: Callable[[Any], Awaitable[Any]], client: Any) -> tuple[int, str]:
    """The JSON-RPC error code and message `send` is answered with."""
    # The 1.x line names its error class `McpError`, the 2.x line `MCPError`.
    errors: Any = importlib.import_module("mcp.shared.exceptions")
    kind = errors.MCPError if MAJOR >= 2 else errors.McpError
    with pytest.raises(kind) as raised:
        await send(client)
    error = raised.value.error
    return int(error.code), str(error.message)


async def test_the_experimental_task_form_is_refused_and_the_plain_call_answered(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    argv = [*SERVE, "--root", str(root), "--data", str(tmp_path / "data")]
    # The 2.x client speaks 2025-11-25 only when told `legacy`; the 1.x client always does.
    mode = "legacy" if MAJOR >= 2 else None
    async with connect(stdio(sys.executable, argv), mode=mode) as session:
        capabilities = session.capabilities()
        call = await refused(call_as_task, session.client)
        polled = await refused(get_task, session.client)
        result = await refused(task_result, session.client)
        answer = await session.call_tool("workflow", WORKFLOW)
        # The extension declared on a 2025-era connection changes nothing: the answer is in place.
        declared = wire(await session.client.call_tool("workflow", DECLARED, meta=DECLARES_TASKS))
        # The refused call ran nothing: no run of its name is kept.
        unknown = await session.call_tool("workflow", {"run": "refused"})
    assert "tasks" not in capabilities
    assert TASKS_EXTENSION not in capabilities.get("extensions", {})
    assert declared.get("resultType", "complete") == "complete"
    assert declared["structuredContent"] == answer["structuredContent"]
    assert task_rows(tmp_path / "data") == []
    assert call == (-32602, LEGACY_TASK_REFUSED)
    assert polled == result == (-32601, "Method not found")
    assert answer["structuredContent"]["count"] == 1
    assert answer["structuredContent"]["status"] == "completed"
    assert unknown["isError"] is True
    assert unknown["content"][0]["text"] == "run: no stored run 'refused'"


def task_rows(data: Path) -> list[tuple[Any, ...]]:
    """The MCP task rows the `--data` store keeps (none when it has no task table)."""
    with closing(sqlite3.connect(data / "workflows.sqlite3")) as database:
        tables = database.execute("SELECT name FROM sqlite_master WHERE name = 'mcp_tasks'")
        if not tables.fetchall():
            return []
        return database.execute("SELECT id, status FROM mcp_tasks").fetchall()
