"""`orkestrel serve --agent PROVIDER:MODEL`: the agent tool served next to the toolbox, its
sub-agent running on a loopback model server with the other served tools, keys taken from the
environment only and never written anywhere; with `--workflow` too, workflow steps that delegate
to it, in one lineage bounded at eight nested workflows."""

from __future__ import annotations

import argparse
import functools
import io
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx
import pytest

from agent.conftest import backend, loopback
from agent.servers import (
    Backend,
    anthropic_stream,
    openai_error,
    openai_stream,
    stream_reply,
)
from orkestrel.cli import main
from orkestrel.cli.serve import register, run_serve
from orkestrel.cli.workflow import open_workflow_store
from orkestrel.toolbox import MAX_WORKFLOW_CHAIN
from support.mcp_client import connect, text

pytestmark = pytest.mark.anyio

KEY = "sk-served-secret-0123456789"
ORKESTREL = [sys.executable, "-m", "orkestrel"]

__all__ = ["backend", "loopback"]


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


async def served(app: ModuleType, options: argparse.Namespace, calls: list[Any]) -> list[Any]:
    """Serves in process, runs the MCP calls, and returns their results after the tool list."""
    err = io.StringIO()
    answers: list[Any] = []

    async def serve() -> None:
        await run_serve(options, stderr=err)

    async def printed() -> bool:
        return "listening on " in err.getvalue()

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        await app.poll(printed)
        url = err.getvalue().split("listening on ", 1)[1].split()[0]
        async with connect(url) as client:
            answers.append([tool["name"] for tool in await client.list_tools()])
            for name, arguments in calls:
                answers.append(await client.call_tool(name, arguments))
        group.cancel_scope.cancel()
    assert KEY not in err.getvalue()
    return answers


async def test_an_openai_compatible_sub_agent_uses_the_other_served_tools(
    app: ModuleType, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    samples = '{"samples": [{"id": 1}, {"id": 2}]}'
    backend.push(
        stream_reply(openai_stream([], [("call_1", "infer", samples)])),
        stream_reply(openai_stream(["The records have an integer id."])),
    )
    options = parse(
        "--transport",
        "http",
        "--port",
        "0",
        "--root",
        str(tmp_path),
        "--tools",
        "infer,describe",
        "--agent",
        "openai:small-model",
        "--base-url",
        f"{backend.url}/v1",
    )
    names, described, delegated = await served(
        app,
        options,
        [
            ("describe", {"name": "agent"}),
            ("agent", {"task": "What fields do these records have?"}),
        ],
    )
    assert names == ["infer", "describe", "agent"]
    assert "task (required)" in text(described)
    assert text(delegated) == "The records have an integer id."
    first, second = backend.requests
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.body["model"] == "small-model"
    assert [tool["function"]["name"] for tool in first.body["tools"]] == ["infer", "describe"]
    assert first.body["messages"] == [
        {"role": "user", "content": "What fields do these records have?"}
    ]
    answer = second.body["messages"][-1]
    assert answer["role"] == "tool"
    assert answer["tool_call_id"] == "call_1"
    assert json.loads(answer["content"])["properties"] == {"id": {"type": "integer"}}


async def test_a_served_agent_reports_its_turns_and_tool_calls(
    app: ModuleType, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    backend.push(
        stream_reply(openai_stream([], [("call_1", "infer", '{"samples": [{"id": 1}]}')])),
        stream_reply(openai_stream(["An integer id."])),
    )
    options = parse(
        *("--transport", "http", "--port", "0", "--root", str(tmp_path), "--tools", "infer"),
        *("--agent", "openai:small-model", "--base-url", f"{backend.url}/v1"),
    )
    heard: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    err = io.StringIO()
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))

        async def printed() -> bool:
            return "listening on " in err.getvalue()

        await app.poll(printed)
        url = err.getvalue().split("listening on ", 1)[1].split()[0]
        async with connect(url) as client:
            answer = await client.call_tool("agent", {"task": "Fields?"}, progress=on_progress)
        group.cancel_scope.cancel()
    assert text(answer) == "An integer id."
    messages = [message for _, _, message in heard]
    assert messages[0] == "turn 1: the model called infer"
    assert messages[-1] == "turn 2: the model answered"
    assert set(messages) <= {*messages[:1], "turn 1: tool 'infer' answered", *messages[-1:]}
    assert heard[-1][0] == heard[-1][1]
    assert [done for done, _, _ in heard] == sorted(done for done, _, _ in heard)


async def test_an_anthropic_sub_agent_reads_its_key_from_the_environment(
    app: ModuleType, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    backend.push(stream_reply(anthropic_stream([{"type": "text", "text": "Delegated."}])))
    options = parse(
        "--transport",
        "http",
        "--port",
        "0",
        "--root",
        str(tmp_path),
        "--tools",
        "infer",
        "--agent",
        "anthropic:claude-small",
        "--base-url",
        backend.url,
    )
    names, delegated = await served(app, options, [("agent", {"task": "Say hi", "tools": []})])
    assert names == ["infer", "agent"]
    assert text(delegated) == "Delegated."
    [request] = backend.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.body["model"] == "claude-small"
    assert "tools" not in request.body


async def test_the_key_never_reaches_an_answer_or_the_log(
    spawn_http: Any, backend: Backend, tmp_path: Path
) -> None:
    backend.push(openai_error(401, f"Incorrect API key provided: {KEY}", "invalid_request_error"))
    log = tmp_path / "serve.log"
    command = [
        *ORKESTREL,
        "serve",
        "--transport",
        "http",
        "--port",
        "0",
        "--root",
        str(tmp_path),
        "--tools",
        "infer",
        "--agent",
        "openai:m",
        "--base-url",
        f"{backend.url}/v1",
    ]
    env = {"OPENAI_API_KEY": KEY, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    with spawn_http(command, log, env) as url:
        async with connect(url) as client:
            result = await client.call_tool("agent", {"task": "hello"})
    assert result.get("isError") is True
    assert text(result).startswith("provider returned 401: Incorrect API key provided: ")
    assert KEY not in text(result)
    assert backend.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in log.read_text()
    assert KEY not in " ".join(command)


@pytest.mark.parametrize(
    ("argv", "env", "status", "message"),
    [
        (["--agent", "openai:m", "--api-key", KEY], {}, 2, "unrecognized arguments: --api-key"),
        (["--agent", "gemini:m"], {}, 2, "expected openai:MODEL or anthropic:MODEL"),
        (["--agent", "openai:"], {}, 2, "expected openai:MODEL or anthropic:MODEL"),
        (["--base-url", "http://127.0.0.1:9/v1"], {}, 2, "--base-url needs --agent"),
        (
            ["--agent", "anthropic:claude"],
            {"ANTHROPIC_API_KEY": ""},
            1,
            "needs ANTHROPIC_API_KEY to be set",
        ),
        (["--agent", "openai:gpt"], {"OPENAI_API_KEY": ""}, 1, "needs OPENAI_API_KEY to be set"),
        (["--agent", "openai:gpt", "--base-url", "ftp://x"], {}, 1, "base_url must be an http"),
    ],
)
def test_bad_agent_options_exit_before_serving(
    argv: list[str],
    env: dict[str, str],
    status: int,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = main(["serve", "--transport", "http", "--port", "0", "--root", str(tmp_path), *argv])
    captured = capsys.readouterr()
    assert code == status
    assert message in captured.err
    assert "listening on" not in captured.err
    assert KEY not in captured.err


def workflow_call(name: str, task: str) -> str:
    """The arguments of a `workflow` call whose one step delegates `task` to the served agent."""
    return json.dumps({"name": name, "steps": [{"name": "agent", "input": {"task": task}}]})


async def stored(data: Path, id: str) -> Any:
    store = open_workflow_store(data)
    try:
        return await store.get(id)
    finally:
        await store.close()


async def test_a_served_workflow_step_delegates_to_the_served_agent(
    app: ModuleType, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    samples = '{"samples": [{"id": 1}, {"id": 2}]}'
    backend.push(
        stream_reply(openai_stream([], [("call_1", "workflow", '{"name": "plan", "steps": []}')])),
        stream_reply(openai_stream([], [("call_2", "infer", samples)])),
        stream_reply(openai_stream(["The records have an integer id."])),
    )
    data = tmp_path / "data"
    options = parse(
        *("--transport", "http", "--port", "0", "--root", str(tmp_path), "--data", str(data)),
        *("--tools", "infer", "--workflow", "--agent", "openai:small-model"),
        *("--base-url", f"{backend.url}/v1"),
    )
    steps = [{"name": "agent", "input": {"task": "What fields do these records have?"}}]
    names, ran = await served(app, options, [("workflow", {"name": "plan", "steps": steps})])
    assert names == ["infer", "workflow", "agent"]
    assert (ran.get("isError", False), ran["structuredContent"]) == (
        False,
        {"status": "completed", "count": 1, "durable": True},
    )
    first, second, third = backend.requests
    assert [tool["function"]["name"] for tool in first.body["tools"]] == ["infer", "workflow"]
    assert first.body["messages"] == [
        {"role": "user", "content": "What fields do these records have?"}
    ]
    refused = second.body["messages"][-1]
    assert (refused["role"], refused["content"]) == (
        "tool",
        "workflow 'plan' is already an ancestor (cycle)",
    )
    assert json.loads(third.body["messages"][-1]["content"])["properties"] == {
        "id": {"type": "integer"}
    }
    plan = await stored(data, "plan")
    assert plan["phases"][0]["tasks"][0]["result"] == {
        "success": True,
        "value": "The records have an integer id.",
    }


async def test_served_workflows_and_sub_agents_nest_eight_deep_and_no_deeper(
    app: ModuleType, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    depth = MAX_WORKFLOW_CHAIN
    for level in range(depth + 1):
        nested = workflow_call(f"w{level + 1}", f"level {level + 1}")
        backend.push(stream_reply(openai_stream([], [(f"call_{level}", "workflow", nested)])))
    for level in reversed(range(depth + 1)):
        backend.push(stream_reply(openai_stream([f"level {level} done"])))
    data = tmp_path / "data"
    options = parse(
        *("--transport", "http", "--port", "0", "--root", str(tmp_path), "--data", str(data)),
        *("--tools", "describe", "--workflow", "--agent", "openai:small-model"),
        *("--base-url", f"{backend.url}/v1"),
    )
    root = json.loads(workflow_call("w0", "level 0"))
    _, ran = await served(app, options, [("workflow", root)])
    assert ran["structuredContent"] == {"status": "completed", "count": 1, "durable": True}
    requests = backend.requests
    assert len(requests) == 2 * (depth + 1)
    asked = [request.body["messages"][0]["content"] for request in requests[: depth + 1]]
    assert asked == [f"level {level}" for level in range(depth + 1)]
    answers = [request.body["messages"][-1]["content"] for request in requests[depth + 1 :]]
    assert answers[0] == "nested workflow exceeds max depth 8"
    assert answers[1:] == ['{"status":"completed","count":1,"durable":true}'] * depth
    for level in range(depth + 1):
        snapshot = await stored(data, f"w{level}")
        assert snapshot["status"] == "completed"
        assert snapshot["phases"][0]["tasks"][0]["result"] == {
            "success": True,
            "value": f"level {level} done",
        }
    assert await stored(data, f"w{depth + 1}") is None


def test_the_serve_caps_default_to_the_agent_layers_own() -> None:
    from orkestrel.agent import AGENT_MAX_AGENTS, AGENT_MAX_REQUESTS

    options = parse("--agent", "openai:small-model")
    assert (options.agent_max_agents, options.agent_max_requests) == (
        AGENT_MAX_AGENTS,
        AGENT_MAX_REQUESTS,
    )


async def test_a_sub_agent_of_a_sub_agent_asks_the_person_as_itself_at_depth_two(
    app: ModuleType, backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    form = {"fields": [{"control": "text", "name": "password", "label": "Password"}]}
    asked = json.dumps({"to": "user", "schema": form})
    backend.push(
        stream_reply(openai_stream([], [("call_1", "workflow", workflow_call("w", "Log in."))])),
        stream_reply(openai_stream([], [("call_2", "ask", asked)])),
        stream_reply(openai_stream(["Logged in."])),
        stream_reply(openai_stream(["Done."])),
    )
    options = parse(
        *("--transport", "http", "--port", "0", "--root", str(tmp_path), "--tools", "infer"),
        *("--data", str(tmp_path / "data"), "--workflow", "--ask"),
        *("--agent", "openai:small-model", "--base-url", f"{backend.url}/v1"),
    )
    err = io.StringIO()
    result: dict[str, Any] = {}

    async def printed() -> bool:
        return "answer forms at " in err.getvalue()

    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))
        await app.poll(printed)
        url = err.getvalue().split("listening on ", 1)[1].split()[0]
        async with (
            connect(url) as client,
            httpx.AsyncClient(base_url=url.removesuffix("/mcp")) as web,
        ):

            async def delegate() -> None:
                result["answer"] = await client.call_tool("agent", {"task": "Delegate it."})

            async with anyio.create_task_group() as calls:
                calls.start_soon(delegate)
                async with web.stream("GET", "/terminals/user") as stream:
                    async for line in stream.aiter_lines():
                        if line.startswith("data: "):
                            record = json.loads(line[6:])
                            break
                values = {"id": record["id"], "values": {"password": "hunter2"}}
                assert (await web.post("/terminals/user", json=values)).status_code == 200
        group.cancel_scope.cancel()
    assert re.fullmatch(r"agent [0-9a-f]{32} at depth 2", record["from"]), record
    assert text(result["answer"]) == "Done."
    assert json.loads(backend.requests[2].body["messages"][-1]["content"]) == {
        "password": "hunter2"
    }
