"""Hostile model backends against `orkestrel serve --workflow --agent`: a model that answers
every task by fanning it out to more sub-agents, over a loopback OpenAI-compatible server. The
figure is the number of requests the backend received for one top-level call."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.servers import Backend, Reply, openai_stream, stream_reply
from hostile.conftest import Serve
from orkestrel.toolbox.workspace import WORKSPACE_READ_CHARS
from support.mcp_client import text

pytestmark = pytest.mark.anyio

WIDTH = 4
"""How many concurrent `agent` steps each fanned-out workflow holds."""

CEILING = 400
"""How many requests the fake backend fans out before it answers plainly, so that an unbounded
server still ends: far above the default request cap."""


@pytest.fixture
def backend() -> Iterator[Backend]:
    server = Backend()
    yield server
    server.stop()


def fan_out(counter: Iterator[int]) -> Any:
    """A model that answers every request with a workflow of `WIDTH` concurrent delegations."""

    def respond(body: Any) -> Reply:
        turn = next(counter)
        if turn >= CEILING:
            return stream_reply(openai_stream(["done"]))
        tasks = [
            {"id": f"t{i}", "name": f"t{i}", "behavior": "agent", "input": {"task": f"part {i}"}}
            for i in range(WIDTH)
        ]
        phases = [{"id": "fan", "name": "fan", "tasks": tasks}]
        call = json.dumps({"id": f"w{turn}", "name": f"w{turn}", "phases": phases})
        return stream_reply(openai_stream([], [(f"call_{turn}", "workflow", call)]))

    return respond


def argv(backend: Backend, *extra: str) -> list[str]:
    return [
        *("--tools", "describe", "--workflow", "--agent", "openai:fan-out"),
        *("--base-url", f"{backend.url}/v1", *extra),
    ]


async def test_a_fanning_out_model_is_stopped_by_the_default_request_cap(
    serve: Serve, backend: Backend
) -> None:
    backend.respond = fan_out(itertools.count())
    async with serve(*argv(backend)) as client:
        answer = await client.call_tool("agent", {"task": "plan the release"})
    assert len(backend.requests) == 256
    assert answer.get("isError") is True
    assert text(answer) == (
        "model request refused: this call already made 256 model requests, its max_requests "
        "limit (orkestrel serve --agent-max-requests)"
    )


async def test_the_agent_and_request_caps_are_serve_options(serve: Serve, backend: Backend) -> None:
    backend.respond = fan_out(itertools.count())
    flags = ("--agent-max-agents", "3", "--agent-max-requests", "12")
    async with serve(*argv(backend, *flags)) as client:
        answer = await client.call_tool("agent", {"task": "plan the release"})
    assert answer.get("isError") is True
    assert "its max_requests limit (orkestrel serve --agent-max-requests)" in text(answer)
    assert len(backend.requests) == 12
    started = [request for request in backend.requests if len(request.body["messages"]) == 1]
    assert len(started) == 3


async def test_two_hundred_reads_of_an_eight_mebibyte_file_in_one_turn_are_bounded(
    serve: Serve, backend: Backend, tmp_path: Path
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    size = 8 * 1024 * 1024 - 1024
    (root / "big.txt").write_text("b" * size)
    read = json.dumps({"operation": "read", "path": "big.txt"})
    calls = [(f"call_{n}", "workspace", read) for n in range(200)]

    def respond(body: Any) -> Reply:
        if body["messages"][-1]["role"] == "tool":
            return stream_reply(openai_stream(["read them all"]))
        return stream_reply(openai_stream([], calls, split=4096))

    backend.respond = respond
    tools = ("--tools", "workspace", "--agent", "openai:reader", "--base-url", f"{backend.url}/v1")
    async with serve(*tools) as client:
        answer = await client.call_tool("agent", {"task": "read big.txt 200 times"})
    assert (answer.get("isError", False), text(answer)) == (False, "read them all")
    answers = [m["content"] for m in backend.requests[1].body["messages"] if m["role"] == "tool"]
    assert len(answers) == 33
    # The workspace tool's read window (WORKSPACE_READ_CHARS) bounds each answer before the
    # agent's max_context has to (tests/agent/test_bounds.py covers that limit on its own).
    window = (
        "b" * WORKSPACE_READ_CHARS + "\n[truncated: showed lines 1-1 of 1 (line 1 cut at "
        f"{WORKSPACE_READ_CHARS} characters); read on with offset 2]"
    )
    assert answers[:32] == [window] * 32
    assert answers[32] == (
        "not run: this turn made 200 tool calls, over the agent's max_calls limit of 32 per "
        "turn; the first 32 ran and the other 168 were dropped"
    )


async def test_a_fanning_out_workflow_call_spends_one_budget_across_its_steps(
    serve: Serve, backend: Backend
) -> None:
    backend.respond = fan_out(itertools.count())
    tasks = [
        {"id": f"t{i}", "name": f"t{i}", "behavior": "agent", "input": {"task": f"part {i}"}}
        for i in range(WIDTH)
    ]
    root = {"id": "root", "name": "root", "phases": [{"id": "fan", "name": "fan", "tasks": tasks}]}
    flags = ("--agent-max-agents", "6", "--agent-max-requests", "12")
    async with serve(*argv(backend, *flags)) as client:
        await client.call_tool("workflow", root)
    started = [request for request in backend.requests if len(request.body["messages"]) == 1]
    assert (len(backend.requests), len(started)) == (12, 6)
