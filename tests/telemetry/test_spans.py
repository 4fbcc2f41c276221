"""Spans of `orkestrel serve --transport http` reach a real OTLP/HTTP receiver on loopback
(oteltap): each tool call and each workflow task is an `execute_tool {name}` span after the
GenAI semantic conventions, inside the MCP SDK's own `tools/call {name}` server span, with
`error.type` on a failure."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from orkestrel.mcp.requirements import installed_major
from support.polling import until
from support.serve_http import served

pytest.importorskip("oteltap", reason="the receiver comes with the test extra")
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(installed_major() < 2, reason="the SDK's own spans are on the 2.x line"),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # oteltap polls with asyncio


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def receiver() -> AsyncIterator[tuple[int, list[Any]]]:
    """A real OTLP/HTTP receiver on loopback; yields its port and the spans it has received."""
    from oteltap import OtelTapHttpProtobufReceiver, OtelTapHttpProtobufReceiverSettings

    port = free_port()
    spans: list[Any] = []
    settings = OtelTapHttpProtobufReceiverSettings(http_port=port)
    async with OtelTapHttpProtobufReceiver(settings) as tap:

        async def collect() -> None:
            async for span in tap.stream_traces():
                spans.append(span)

        task = asyncio.ensure_future(collect())
        try:
            yield port, spans
        finally:
            task.cancel()


def attributes(span: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for item in span.attributes:
        kind = item.value.WhichOneof("value")
        values[item.key] = getattr(item.value, kind) if kind else None
    return values


def named(spans: list[Any], name: str) -> list[Any]:
    return [span for span in spans if span.name == name]


async def test_tool_calls_and_workflow_tasks_are_execute_tool_spans(tmp_path: Path) -> None:
    from mcp.client import Client

    from orkestrel.mcp.task_client import CreatedTask, TasksExtension, get_task

    workflow = {
        "name": "traced",
        "steps": [
            {"name": "infer", "input": {"samples": [1, 2]}},
            {"name": "infer", "input": {"samples": "not a list"}},
        ],
    }
    async with AsyncExitStack() as stack:
        port, spans = await stack.enter_async_context(receiver())
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_SERVICE_NAME": "orkestrel-under-test",
            "OTEL_BSP_SCHEDULE_DELAY": "50",
        }
        _, url = stack.enter_context(served(tmp_path, "--workflow", env=env))
        session = await stack.enter_async_context(Client(url + "/mcp"))
        tasking = await stack.enter_async_context(
            Client(url + "/mcp", extensions=[TasksExtension()])
        )
        # Another run name: the two runs may overlap, and a kept run's name is taken while it runs.
        as_task = {**workflow, "name": "traced-task"}
        handle = await tasking.session.call_tool("workflow", as_task, allow_claimed=True)
        assert isinstance(handle, CreatedTask)
        good = await session.call_tool("infer", {"samples": [1, 2, 3]})
        bad = await session.call_tool("infer", {"samples": "x"})
        unknown = await session.call_tool("no_such_tool", {})
        ran = await session.call_tool("workflow", workflow)
        with anyio.fail_after(60):
            while (await get_task(tasking.session, handle.task_id))["status"] == "working":  # noqa: ASYNC110 - server state
                await anyio.sleep(0.1)
        # The batch exporter sends within OTEL_BSP_SCHEDULE_DELAY; a loaded machine may lag.
        await until(lambda: len(named(spans, "execute_tool infer")) >= 6, 60)
        await until(lambda: named(spans, "execute_tool no_such_tool"), 60)
        await until(lambda: len(named(spans, "execute_tool workflow")) == 2, 60)
    assert (good.is_error, bad.is_error, unknown.is_error) == (False, True, True)
    assert ran.is_error is False
    infers = named(spans, "execute_tool infer")
    served_calls = [s for s in infers if "orkestrel.workflow.task" not in attributes(s)]
    assert len(served_calls) == 2
    ok, failing = sorted(served_calls, key=lambda s: "error.type" in attributes(s))
    assert attributes(ok) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "infer",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": attributes(ok)["gen_ai.tool.call.id"],
    }
    assert attributes(failing)["error.type"] == "tool_error"
    assert failing.status.code == 2  # STATUS_CODE_ERROR
    assert attributes(named(spans, "execute_tool no_such_tool")[0])["error.type"] == (
        "tool_not_found"
    )
    # Each served call's span is a child of the MCP SDK's own server span for the request.
    servers = {s.span_id: s for s in named(spans, "tools/call infer")}
    for span in served_calls:
        parent = servers[span.parent_span_id]
        assert parent.trace_id == span.trace_id
        assert attributes(parent)["jsonrpc.request.id"] == attributes(span)["gen_ai.tool.call.id"]
    # The workflow ran twice: once in the call, once as a task whose span carries the task id.
    outers = {
        attributes(s)["gen_ai.tool.call.id"]: s for s in named(spans, "execute_tool workflow")
    }
    assert handle.task_id in outers
    for outer in outers.values():
        # Its tasks are spans inside the workflow's, one failing as its handler did.
        tasks = [s for s in infers if s.parent_span_id == outer.span_id]
        assert sorted(attributes(s).get("error.type", "") for s in tasks) == ["", "handler"]
        assert all(attributes(s)["orkestrel.workflow.task"] for s in tasks)
        assert len({attributes(s)["orkestrel.workflow.id"] for s in tasks}) == 1


async def test_a_timed_out_or_unknown_call_names_its_error_type() -> None:
    from orkestrel.telemetry import tool_error_type
    from orkestrel.tool import Tool, ToolManager

    async def slow(args: Any) -> None:
        await anyio.sleep(10)

    manager = ToolManager()
    manager.add(Tool(name="slow", execute=slow))
    late = await manager.execute({"id": "1", "name": "slow", "arguments": {}}, timeout=0.01)
    missing = await manager.execute({"id": "2", "name": "gone", "arguments": {}})
    assert late["success"] is False
    assert missing["success"] is False
    assert tool_error_type(late["error"]) == "timeout"
    assert tool_error_type(missing["error"]) == "tool_not_found"


def test_an_endpoint_without_the_otel_extra_is_said_once_and_serving_goes_on(
    tmp_path: Path,
) -> None:
    import os
    import subprocess
    import sys

    from orkestrel.telemetry import NOT_INSTALLED

    # A process where the SDK cannot be imported, as without the extra.
    script = (
        "import runpy, sys; sys.modules['opentelemetry.sdk'] = None; "
        "sys.argv = ['orkestrel', 'serve', '--tools', 'infer', '--root', sys.argv[1]]; "
        "runpy.run_module('orkestrel', run_name='__main__')"
    )
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(NOT_INSTALLED) == 1


async def test_a_call_that_asks_the_client_first_is_no_failed_span(tmp_path: Path) -> None:
    from mcp.client import Client
    from mcp_types import ElicitResult

    async def person(context: Any, params: Any) -> Any:
        return ElicitResult(action="accept", content={"owner": "ada"})

    form = {"fields": [{"control": "text", "name": "owner", "rule": {"required": True}}]}
    async with AsyncExitStack() as stack:
        port, spans = await stack.enter_async_context(receiver())
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"}
        env["OTEL_BSP_SCHEDULE_DELAY"] = "50"
        _, url = stack.enter_context(served(tmp_path, "--ask", env=env))
        session = await stack.enter_async_context(Client(url + "/mcp", elicitation_callback=person))
        asked = await session.call_tool("ask", {"to": "user", "schema": form})
        # On 2026-07-28 the call is answered with the form first, then retried with the answer.
        await until(lambda: len(named(spans, "execute_tool ask")) == 2, 60)
    assert asked.is_error is False
    assert [attributes(s).get("error.type") for s in named(spans, "execute_tool ask")] == [
        None,
        None,
    ]
