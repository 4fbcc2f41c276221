"""MCP Tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663) on real `orkestrel serve`
processes under the official client: a client that declares the extension gets a task for a
workflow call and polls it to its result, from the server that runs it or from another one on
the same store; a plain client gets the answer in the call, as before."""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.conftest import backend, loopback
from agent.servers import Backend, Reply, openai_stream, stream_reply
from orkestrel.mcp.requirements import installed_major
from support.napper import TASK_ROWS, napper_env, naps, shared_store, steps, stored, stored_rows
from support.postgres import fresh_database
from support.serve_http import served

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(installed_major() < 2, reason="tasks are served on the 2.x SDK line"),
]

__all__ = ["backend", "loopback"]


@pytest.fixture
def plugin(tmp_path: Path) -> dict[str, str]:
    """The environment a served process needs to load the `nap` plugin."""
    return napper_env(tmp_path)


@asynccontextmanager
async def client(
    target: Any, *, tasks: bool = True, token: str | None = None, elicit: Any = None
) -> AsyncIterator[Any]:
    """The official client on `target` (stdio parameters or an MCP URL), declaring the Tasks
    extension when `tasks`, sending `token` as its bearer credentials, answering form
    elicitations with `elicit` (wire params in, wire answer out) when given."""
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    from orkestrel.mcp.task_client import TasksExtension

    async with AsyncExitStack() as stack:
        if isinstance(target, str) and token is not None:
            import httpx2

            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
            )
            target = streamable_http_client(target, http_client=http)
        extensions = [TasksExtension()] if tasks else None
        callbacks: dict[str, Any] = {}
        if elicit is not None:
            from mcp_types import ElicitResult

            async def on_elicit(context: Any, params: Any) -> Any:
                wire = params.model_dump(by_alias=True, mode="json", exclude_none=True)
                return ElicitResult.model_validate(await elicit(wire))

            callbacks["elicitation_callback"] = on_elicit
        yield await stack.enter_async_context(Client(target, extensions=extensions, **callbacks))


def stdio_server(
    tmp_path: Path,
    env: dict[str, str],
    *extra: str,
    tools: tuple[str, ...] = ("--workflow", "--tools", "nap"),
) -> tuple[Path, Path, Any]:
    """A stdio `serve` of `tools` (plus `extra`) on a fresh root under `tmp_path`, keeping its
    runs and tasks under `tmp_path / "data"`: the root, the data folder and the parameters the
    official client starts it with."""
    from mcp.client.stdio import StdioServerParameters

    root, data = tmp_path / "root", tmp_path / "data"
    root.mkdir()
    argv = ["-m", "orkestrel", "serve", *tools]
    argv += ["--root", str(root), "--data", str(data), *extra]
    server = StdioServerParameters(command=sys.executable, args=argv, env={**os.environ, **env})
    return root, data, server


async def created(session: Any, name: str, arguments: dict[str, Any]) -> Any:
    """Calls `name` and gives the task handle the server answered with."""
    from orkestrel.mcp.task_client import CreatedTask

    answer = await session.session.call_tool(name, arguments, allow_claimed=True)
    assert isinstance(answer, CreatedTask), answer
    return answer


async def settled(session: Any, task_id: str, seconds: float = 60) -> dict[str, Any]:
    """Polls `tasks/get` until the task is no longer working; gives the last answer."""
    from orkestrel.mcp.task_client import get_task

    with anyio.fail_after(seconds):
        while True:
            answer = await get_task(session.session, task_id)
            if answer["status"] not in ("working", "input_required"):
                return answer
            await anyio.sleep(0.1)


async def refusal(session: Any, task_id: Any) -> str:
    """The error message `tasks/get` answers for `task_id`."""
    from mcp.shared.exceptions import MCPError

    from orkestrel.mcp.task_client import get_task

    with pytest.raises(MCPError) as raised:
        await get_task(session.session, task_id)
    return str(raised.value.error.message)


@contextmanager
def two_servers(
    tmp_path: Path, env: dict[str, str], *store: str, tokens: tuple[str, str] = ("a", "a")
) -> Iterator[tuple[str, str]]:
    """Two `serve --transport http` processes on one store; yields their MCP URLs."""
    argv = ["--workflow", "--tools", "nap", *store]
    with (
        served(tmp_path, *argv, "--token", tokens[0], env=env) as (_, first),
        served(tmp_path, *argv, "--token", tokens[1], env=env) as (_, second),
    ):
        yield f"{first}/mcp", f"{second}/mcp"


async def test_a_task_capable_client_gets_a_task_and_a_plain_client_the_answer(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    root, _, server = stdio_server(tmp_path, plugin)
    async with client(server) as capable:
        handle = await created(capable, "workflow", steps("t", 2, 0.5))
        assert handle.status == "working"
        assert handle.ttl_ms == 3_600_000
        assert len(handle.task_id) == 32
        polled = await settled(capable, handle.task_id)
        # The call the same client makes through `call_tool` is polled behind it.
        resolved = await capable.call_tool("workflow", steps("r", 1, 0))
        listed = await capable.list_tools()
    assert polled["status"] == "completed"
    assert polled["result"]["structuredContent"] == {
        "status": "completed",
        "count": 2,
        "durable": True,
    }
    assert polled["_meta"]["orkestrel/progress"] == {"progress": 2, "total": 2}
    assert polled["statusMessage"] == "2 of 2 tasks settled: 'phase-1-task-0' completed"
    assert resolved.structured_content == {"status": "completed", "count": 1, "durable": True}
    assert naps(root) == ["t0", "t1", "r0"]
    assert {tool.name for tool in listed.tools} == {"nap", "workflow"}
    async with client(server, tasks=False) as plain:
        answer = await plain.session.call_tool("workflow", steps("p", 1, 0))
        # A task-capable client's call of a tool that is not a task tool is answered in place.
        async with client(server) as capable:
            direct = await capable.session.call_tool("nap", {"tag": "d"}, allow_claimed=True)
    assert answer.structured_content == {"status": "completed", "count": 1, "durable": True}
    assert direct.structured_content == {"tag": "d"}
    assert naps(root) == ["t0", "t1", "r0", "p0", "d"]


async def test_a_tool_that_opted_in_is_answered_with_a_task_and_the_others_in_place(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    # No workflow or agent tool: the broker is there for `doze` alone.
    root, data, server = stdio_server(tmp_path, plugin, tools=("--tools", "nap,doze"))
    async with client(server) as capable:
        handle = await created(capable, "doze", {"seconds": 0.5, "tag": "o"})
        polled = await settled(capable, handle.task_id)
        direct = await capable.session.call_tool("nap", {"tag": "n"}, allow_claimed=True)
        resolved = await capable.call_tool("doze", {"tag": "r"})
    async with client(server, tasks=False) as plain:
        answer = await plain.session.call_tool("doze", {"tag": "p"})
    assert handle.status == "working"
    assert polled["status"] == "completed"
    assert polled["result"]["structuredContent"] == {"tag": "o"}
    assert direct.structured_content == {"tag": "n"}
    assert resolved.structured_content == {"tag": "r"}
    assert answer.structured_content == {"tag": "p"}
    assert naps(root) == ["o", "n", "r", "p"]
    rows = stored(data, "SELECT status, entry FROM mcp_tasks ORDER BY beat")
    assert [(status, json.loads(entry)["tool"]) for status, entry in rows] == [
        ("completed", "doze"),
        ("completed", "doze"),
    ]


FORM: dict[str, Any] = {
    "label": "Deploy",
    "fields": [{"control": "text", "name": "owner", "rule": {"required": True}}],
}


def asked_then_napped(tag: str) -> dict[str, Any]:
    """A workflow that asks the person at the client a form, then naps."""
    steps = [{"name": "ask", "input": {"to": "user", "schema": FORM}}, {"name": "nap"}]
    steps[1]["input"] = {"tag": tag}
    return {"name": tag, "steps": steps}


async def test_an_ask_inside_a_task_waits_as_input_required_and_tasks_update_resumes_it(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    from orkestrel.mcp.task_client import get_task, update_task

    seen: list[dict[str, Any]] = []

    async def person(params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params)
        return {"action": "accept", "content": {"owner": "ada"}}

    root, data, server = stdio_server(tmp_path, plugin, "--ask")
    async with client(server, elicit=person) as capable:
        handle = await created(capable, "workflow", asked_then_napped("by-hand"))
        waiting = await until_status(capable, handle.task_id, "input_required")
        (key, request), *more = waiting["inputRequests"].items()
        stored_while_waiting = stored(data, "SELECT status FROM mcp_tasks")
        # Answers to keys that are not outstanding are ignored; the task keeps waiting.
        await update_task(capable.session, handle.task_id, {"other": {"action": "decline"}})
        still = await get_task(capable.session, handle.task_id)
        # An answer the form refuses is asked again, with the faults, under a new key.
        await update_task(
            capable.session, handle.task_id, {key: {"action": "accept", "content": {}}}
        )
        again = await until_status(capable, handle.task_id, "input_required", besides=key)
        (second, retry), *_ = again["inputRequests"].items()
        await update_task(
            capable.session,
            handle.task_id,
            {second: {"action": "accept", "content": {"owner": "bo"}}},
        )
        done = await settled(capable, handle.task_id)
        # The TasksExtension client answers through its elicitation callback behind call_tool.
        resolved = await capable.call_tool("workflow", asked_then_napped("by-callback"))
        runs = [
            await capable.call_tool("workflow", {"run": name})
            for name in ("by-hand", "by-callback")
        ]
    # A client that declared no elicitation is not asked: the ask fails at once over stdio.
    async with client(server) as mute:
        unasked = await mute.call_tool("workflow", asked_then_napped("unasked"))
    assert unasked.structured_content["failures"] == [
        {
            "task": "phase-0-task-0",
            "origin": "handler",
            "message": "asking 'user' failed: cannot reach the person at 'user': the MCP client "
            "does not support elicitation, and no answering page is served",
        }
    ]
    assert more == []
    assert request == {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Deploy",
            "requestedSchema": {
                "type": "object",
                "properties": {"owner": {"title": "owner", "type": "string"}},
                "required": ["owner"],
            },
        },
    }
    assert stored_while_waiting == [("input_required",)]
    assert list(again["inputRequests"]) == [second]
    assert retry["params"]["message"].startswith("Deploy\n\nPlease correct: owner: ")
    assert (still["status"], list(still["inputRequests"])) == ("input_required", [key])
    assert done["status"] == "completed"
    assert "inputRequests" not in done
    assert done["result"]["structuredContent"]["status"] == "completed"
    assert resolved.structured_content["status"] == "completed"
    assert [params["message"] for params in seen] == ["Deploy"]
    answered = [[task["value"] for task in run.structured_content["tasks"]] for run in runs]
    assert answered == [
        [{"owner": "bo"}, {"tag": "by-hand"}],
        [{"owner": "ada"}, {"tag": "by-callback"}],
    ]
    assert naps(root) == ["by-hand", "by-callback", "unasked"]


async def test_the_answer_to_a_tasks_form_may_go_to_another_server_on_the_store(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    from orkestrel.mcp.task_client import update_task

    async def unused(params: dict[str, Any]) -> dict[str, Any]:
        raise AssertionError("the form is answered by hand, on the other server")

    data = tmp_path / "data"
    with two_servers(tmp_path, plugin, "--data", str(data), "--ask") as (first, second):
        async with (
            client(first, token="a", elicit=unused) as one,
            client(second, token="a") as other,
        ):
            handle = await created(one, "workflow", asked_then_napped("elsewhere"))
            waiting = await until_status(other, handle.task_id, "input_required")
            (key, _), *_ = waiting["inputRequests"].items()
            answer = {"action": "accept", "content": {"owner": "cy"}}
            await update_task(other.session, handle.task_id, {key: answer})
            done = await settled(one, handle.task_id)
            run = await other.call_tool("workflow", {"run": "elsewhere"})
    assert done["status"] == "completed"
    assert [task["value"] for task in run.structured_content["tasks"]] == [
        {"owner": "cy"},
        {"tag": "elsewhere"},
    ]
    assert naps(tmp_path) == ["elsewhere"]


async def until_status(
    session: Any, task_id: str, status: str, *, besides: str | None = None
) -> dict[str, Any]:
    """Polls `tasks/get` until the task reads `status` (30 s at most), with an input request
    other than `besides` when given; gives that answer."""
    from orkestrel.mcp.task_client import get_task

    with anyio.fail_after(30):
        while True:
            answer = await get_task(session.session, task_id)
            fresh = set(answer.get("inputRequests", {})) - {besides}
            if answer["status"] == status and (besides is None or fresh):
                return answer
            assert answer["status"] in ("working", "input_required"), answer
            await anyio.sleep(0.1)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_task_started_on_one_server_is_polled_to_its_end_on_another(
    tmp_path: Path, plugin: dict[str, str], backend: str
) -> None:
    with shared_store(tmp_path, backend) as store, two_servers(tmp_path, plugin, *store) as urls:
        async with client(urls[0], token="a") as one, client(urls[1], token="a") as other:
            handle = await created(one, "workflow", steps("x", 3, 0.4))
            polled = await settled(other, handle.task_id)
            again = await settled(one, handle.task_id)
    assert polled["status"] == "completed"
    assert polled["result"]["structuredContent"] == {
        "status": "completed",
        "count": 3,
        "durable": True,
    }
    assert again == {**polled, "_meta": again["_meta"]}
    assert naps(tmp_path) == ["x0", "x1", "x2"]


async def test_cancelling_on_another_server_stops_the_run_and_marks_it_cancelled(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    data = tmp_path / "data"
    with two_servers(tmp_path, plugin, "--data", str(data)) as (first, second):
        async with client(first, token="a") as one, client(second, token="a") as other:
            from orkestrel.mcp.task_client import cancel_task

            handle = await created(one, "workflow", steps("c", 2, 30))
            await cancel_task(other.session, handle.task_id)
            polled = await settled(one, handle.task_id, 10)
            # The run stopped: its 30-second nap never wrote its tag.
            await anyio.sleep(2.5)
            after = await settled(other, handle.task_id)
    assert polled["status"] == "cancelled"
    assert polled["statusMessage"] == "cancelled by the client"
    assert "result" not in polled
    assert after["status"] == "cancelled"
    assert naps(tmp_path) == []
    rows = stored(data, "SELECT id, status FROM mcp_tasks")
    assert rows == [(handle.task_id, "cancelled")]


async def test_forged_and_foreign_task_ids_read_as_unknown(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    from mcp.shared.exceptions import MCPError

    from orkestrel.mcp.task_client import cancel_task, get_task

    data = tmp_path / "data"
    with two_servers(tmp_path, plugin, "--data", str(data), tokens=("a", "b")) as (first, second):
        async with client(first, token="a") as one, client(second, token="b") as stranger:
            handle = await created(one, "workflow", steps("h", 1, 1))
            unknown = await refusal(one, secrets.token_hex(16))
            forged = [
                await refusal(one, "../" * 40),
                await refusal(one, "x" * 5000),
                await refusal(one, ""),
                await refusal(one, "é' OR 1=1 --"),
                await refusal(one, handle.task_id.upper()),
            ]
            # Another token's client, on the same store: the real id reads as unknown.
            foreign = await refusal(stranger, handle.task_id)
            await cancel_task(stranger.session, handle.task_id)
            with pytest.raises(MCPError) as typed:
                await one.session.send_request(_raw({"taskId": 42}), _answer_adapter())
            # tasks/update: another token's, or an unknown id, is the same unknown task; a
            # malformed answer is a typed refusal naming where it is.
            answers = {"form-1": {"action": "accept", "content": {}}}
            huge = {"k": {"action": "accept", "content": {"x": "y" * 1_100_000}}}
            updates = [
                await refused_update(
                    stranger, {"taskId": handle.task_id, "inputResponses": answers}
                ),
                await refused_update(
                    one, {"taskId": secrets.token_hex(16), "inputResponses": answers}
                ),
                await refused_update(one, {"taskId": handle.task_id, "inputResponses": [1]}),
                await refused_update(
                    one, {"taskId": handle.task_id, "inputResponses": {"k": {"action": "yes"}}}
                ),
                await refused_update(
                    one,
                    {
                        "taskId": handle.task_id,
                        "inputResponses": {"k": {"action": "accept", "content": 3}},
                    },
                ),
                await refused_update(
                    one,
                    {
                        "taskId": handle.task_id,
                        "inputResponses": huge,
                    },
                ),
            ]
            mine = await settled(one, handle.task_id)
            untouched = await get_task(one.session, handle.task_id)
    assert (
        unknown == "invalid params: taskId: no such task (unknown, expired, or not this client's)"
    )
    assert forged == [unknown] * 5
    assert foreign == unknown
    assert typed.value.error.code == -32602
    assert typed.value.error.message == ("invalid params: taskId: expected the string id of a task")
    answer = (
        '-32602 invalid params: inputResponses.k: expected a form elicitation\'s answer {"action": '
        '"accept" | "decline" | "cancel", "content"?: object}'
    )
    assert [f"{code} {message}" for code, message in updates] == [
        f"-32602 {unknown}",
        f"-32602 {unknown}",
        "-32602 invalid params: inputResponses: expected an object of answers keyed by the "
        "task's inputRequests keys",
        answer,
        answer,
        f"-32602 invalid params: inputResponses: {len(json.dumps(huge))} bytes of JSON, over the "
        "1048576 a task's answers may hold",
    ]
    # The stranger's cancel did nothing to it.
    assert mine["status"] == untouched["status"] == "completed"
    assert naps(tmp_path) == ["h0"]


def _raw(params: dict[str, Any], method: str = "tasks/get") -> Any:
    """A `method` request with whatever params, sent as they are."""
    from mcp_types import Request, RequestParams
    from pydantic import ConfigDict

    class AnyParams(RequestParams):
        model_config = ConfigDict(extra="allow")

    class Raw(Request[AnyParams, str]):
        params: AnyParams

    return Raw(method=method, params=AnyParams(**params))


async def refused_update(session: Any, params: dict[str, Any]) -> tuple[int, str]:
    """The error code and message `tasks/update` with `params` answers."""
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError) as raised:
        await session.session.send_request(_raw(params, "tasks/update"), _answer_adapter())
    return raised.value.error.code, str(raised.value.error.message)


def _answer_adapter() -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(dict[str, Any])


async def test_the_live_tasks_of_a_client_are_bounded_and_finished_ones_expire(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    from mcp.shared.exceptions import MCPError

    from orkestrel.mcp.task_client import cancel_task

    root, data, server = stdio_server(tmp_path, plugin, "--max-tasks", "2", "--task-ttl", "2")
    async with client(server) as capable:
        first = await created(capable, "workflow", steps("a", 1, 30))
        second = await created(capable, "workflow", steps("b", 1, 30))
        with pytest.raises(MCPError) as refused:
            await created(capable, "workflow", steps("c", 1, 0))
        await cancel_task(capable.session, first.task_id)
        await settled(capable, first.task_id)
        third = await created(capable, "workflow", steps("d", 1, 0))
        done = await settled(capable, third.task_id)
        await cancel_task(capable.session, second.task_id)
        assert third.ttl_ms == 2000
        # Past its TTL a task is deleted, result and all.
        await anyio.sleep(2.5)
        gone = [await refusal(capable, task.task_id) for task in (first, second, third)]
        fourth = await created(capable, "workflow", steps("e", 1, 0))
        await settled(capable, fourth.task_id)
    assert refused.value.error.code == -32602
    assert refused.value.error.message == (
        "too many tasks: this client already has 2 working; wait for one to finish or cancel "
        "one with tasks/cancel"
    )
    assert done["status"] == "completed"
    assert (
        gone
        == ["invalid params: taskId: no such task (unknown, expired, or not this client's)"] * 3
    )
    rows = stored(data, "SELECT id FROM mcp_tasks")
    # Starting the fourth swept the three expired rows.
    assert rows == [(fourth.task_id,)]
    assert naps(root) == ["d0", "e0"]


@pytest.mark.parametrize(
    ("backend", "takeover"),
    [("sqlite", "survivor"), ("postgres", "survivor"), ("postgres", "restart")],
)
async def test_a_workflow_task_whose_server_was_killed_is_resumed_by_another_once(
    tmp_path: Path, plugin: dict[str, str], backend: str, takeover: str
) -> None:
    with shared_store(tmp_path, backend) as store, ExitStack() as servers:
        argv = ["--workflow", "--tools", "nap", *store, "--token", "a"]

        def serve() -> str:
            return servers.enter_context(served(tmp_path, *argv, env=plugin))[1]

        # A server that runs all along, or one started on the store after the kill.
        survivor = serve() if takeover == "survivor" else None
        with served(tmp_path, *argv, env=plugin) as (pid, doomed):
            async with client(f"{doomed}/mcp", token="a") as one:
                handle = await created(one, "workflow", steps("k", 3, 3))
                # The first step is checkpointed before its progress is reported.
                await until_progress(one, handle.task_id, 1)
            # Mid-way through the second step: its side effect is not written yet.
            os.kill(pid, signal.SIGKILL)
        async with client(f"{survivor or serve()}/mcp", token="a") as other:
            working = await settled_or_working(other, handle.task_id)
            done = await settled(other, handle.task_id, 120)
        rows = await stored_rows(store)
    assert working == "working"
    assert done["status"] == "completed", done
    assert done["result"].get("structuredContent") == {
        "status": "completed",
        "count": 3,
        "durable": True,
    }, done["result"]
    # Each step ran exactly once: the first was not run again after the takeover.
    assert naps(tmp_path) == ["k0", "k1", "k2"]
    assert rows == [(handle.task_id, "completed")]


async def test_a_task_that_cannot_resume_reads_failed_once_its_runner_is_silent(
    tmp_path: Path,
) -> None:
    from orkestrel.database import create_database, create_sqlite_driver
    from orkestrel.mcp.constants import TASK_STALE_MS, TASKS_TABLE
    from orkestrel.mcp.task_store import TASKS_COLUMNS, TaskStore

    driver = create_sqlite_driver(tmp_path / "workflows.sqlite3")
    store = TaskStore(create_database(tables={TASKS_TABLE: TASKS_COLUMNS}, driver=driver))
    try:
        call = {"name": "agent", "arguments": {"task": "t"}}
        row = await store.create("me", call, 60_000, 4, 1_000_000)
        assert row is not None
        fresh = await store.get(row["id"], "me", 1_000_000 + TASK_STALE_MS)
        silent = await store.get(row["id"], "me", 1_000_001 + TASK_STALE_MS)
        adopted = await store.adopt(2_000_000, 1000)
    finally:
        await store.close()
    assert fresh is not None
    assert fresh["status"] == "working"
    assert silent is not None
    assert silent["status"] == "failed"
    assert silent["entry"]["error"] == {
        "code": -32603,
        "message": "the server running this task stopped",
    }
    assert adopted is None


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_beat_racing_the_finish_of_its_task_never_loses_the_result(
    tmp_path: Path, backend: str
) -> None:
    """A runner's beat (progress to store) and the end of its run are two transactions on one
    row, each reading it and writing it back; whichever commits second must not write back the
    row as it read it before the other (the task completed with no result, or working again)."""
    from orkestrel.database import (
        create_database,
        create_postgres_driver,
        create_postgres_pool,
        create_sqlite_driver,
    )
    from orkestrel.mcp.constants import TASKS_TABLE
    from orkestrel.mcp.task_store import TASKS_COLUMNS, TaskStore

    with ExitStack() as stack:
        if backend == "sqlite":
            driver = create_sqlite_driver(tmp_path / "workflows.sqlite3")
        else:
            # Pooled, as `serve --database` has it: each transaction on a connection of its own.
            pool = create_postgres_pool(stack.enter_context(fresh_database("race")))
            stack.callback(pool.close)
            driver = create_postgres_driver(pool=pool)
        store = TaskStore(create_database(tables={TASKS_TABLE: TASKS_COLUMNS}, driver=driver))
        finished: list[Any] = []
        try:
            for n in range(150):
                row = await store.create("me", {"name": "workflow"}, 60_000, 4, 1_000_000)
                assert row is not None
                async with anyio.create_task_group() as group:
                    group.start_soon(store.beat, row["id"], 1_000_001, {"progress": {"n": n}})
                    group.start_soon(
                        store.finish, row["id"], "completed", {"result": {"n": n}}, 1_000_001
                    )
                finished.append(await store.get(row["id"], "me", 1_000_002))
        finally:
            await store.close()
    assert [(row["status"], row["entry"].get("result")) for row in finished] == [
        ("completed", {"n": n}) for n in range(150)
    ]


async def until_progress(session: Any, task_id: str, settled: int) -> None:
    """Polls `tasks/get` until the task reports `settled` steps settled (30 s at most)."""
    from orkestrel.mcp.task_client import get_task

    for _ in range(300):
        answer = await get_task(session.session, task_id)
        progress = answer.get("_meta", {}).get("orkestrel/progress", {}).get("progress", 0)
        if progress >= settled:
            return
        await anyio.sleep(0.1)
    raise AssertionError(f"task {task_id} never reported {settled} settled steps")


async def settled_or_working(session: Any, task_id: str) -> str:
    from orkestrel.mcp.task_client import get_task

    answer = await get_task(session.session, task_id)
    return str(answer["status"])


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_fifty_concurrent_tasks_some_cancelled_end_right_with_no_leaked_rows(
    tmp_path: Path, plugin: dict[str, str], backend: str
) -> None:
    from orkestrel.mcp.task_client import cancel_task

    with shared_store(tmp_path, backend) as shared:
        store = [*shared, "--max-tasks", "64", "--task-ttl", "60"]
        with two_servers(tmp_path, plugin, *store) as urls:
            async with client(urls[0], token="a") as one, client(urls[1], token="a") as other:
                handles: list[Any] = [None] * 50

                async def start(index: int) -> None:
                    session = one if index % 2 else other
                    # Every fifth task naps long enough to be cancelled while it runs.
                    seconds = 30 if index % 5 == 0 else 0.5
                    handles[index] = await created(
                        session, "workflow", steps(f"w{index}-", 1, seconds)
                    )

                async with anyio.create_task_group() as group:
                    for index in range(50):
                        group.start_soon(start, index)
                doomed = [handle for index, handle in enumerate(handles) if index % 5 == 0]
                for handle in doomed:
                    await cancel_task(one.session, handle.task_id)
                ends = [(await settled(other, handle.task_id, 120))["status"] for handle in handles]
            rows = await stored_rows(shared)
    expected = ["cancelled" if index % 5 == 0 else "completed" for index in range(50)]
    assert ends == expected
    assert len({handle.task_id for handle in handles}) == 50
    assert sorted(rows) == sorted(
        (handle.task_id, end) for handle, end in zip(handles, expected, strict=True)
    )
    assert sorted(naps(tmp_path)) == sorted(f"w{i}-0" for i in range(50) if i % 5)


def test_a_task_belongs_to_the_credentials_whatever_the_schemes_case() -> None:
    from types import SimpleNamespace

    from orkestrel.mcp.principal import principal

    def over_http(authorization: str | None, grant: Any = None) -> Any:
        headers = {} if authorization is None else {"authorization": authorization}
        scope = {} if grant is None else {"orkestrel.grant": grant}
        return SimpleNamespace(request=SimpleNamespace(scope=scope, headers=headers))

    assert principal(over_http("Bearer abc")) == principal(over_http("bearer  abc"))
    assert principal(over_http("Bearer abc")) != principal(over_http("Bearer abd"))
    assert principal(over_http(None)) == principal(SimpleNamespace(request=None)) == "local"
    subject = SimpleNamespace(subject="alice")
    assert principal(over_http("Bearer x", subject)) == principal(over_http("Bearer y", subject))


async def test_a_workflow_longer_than_the_clients_timeout_ends_through_a_task(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    from mcp.client import Client
    from mcp.shared.exceptions import MCPError

    from orkestrel.mcp.task_client import TasksExtension

    root, _, server = stdio_server(tmp_path, plugin)
    # Each request may take 5 s (the OpenAI Agents SDK's default); the workflow takes 30 s.
    # Polling keeps every request short.
    async with Client(server, extensions=[TasksExtension()], read_timeout_seconds=5) as capable:
        answer = await capable.call_tool("workflow", steps("long", 3, 10))
    async with Client(server, read_timeout_seconds=5) as plain:
        with pytest.raises(MCPError) as timed_out:
            await plain.call_tool("workflow", steps("late", 3, 10))
    assert answer.structured_content == {"status": "completed", "count": 3, "durable": True}
    assert timed_out.value.error.message == "Request 'tools/call' timed out"
    # The timed-out call was cancelled before its first 10 s step wrote its tag.
    assert naps(root) == ["long0", "long1", "long2"]


async def test_the_agents_sdk_declares_no_tasks_so_its_5_s_default_times_out_a_longer_workflow(
    tmp_path: Path, plugin: dict[str, str]
) -> None:
    pytest.importorskip("agents")
    from agents.mcp import MCPServerStdio
    from mcp.shared.exceptions import MCPError

    root, _, server = stdio_server(tmp_path, plugin)
    params: Any = {"command": server.command, "args": server.args, "env": server.env}
    # Its default client_session_timeout_seconds is 5; the workflow takes 6 s.
    async with MCPServerStdio(params=params) as short:
        with pytest.raises(MCPError) as timed_out:
            await short.call_tool("workflow", steps("short", 2, 3))
    async with MCPServerStdio(params=params, client_session_timeout_seconds=30) as patient:
        answer = await patient.call_tool("workflow", steps("patient", 2, 3))
    assert str(timed_out.value) == "Request 'tools/call' timed out"
    # Answered in place, not as a task: the SDK's session declares no Tasks extension.
    assert answer.structured_content == {"status": "completed", "count": 2, "durable": True}
    assert stored(tmp_path / "data", "SELECT count(*) FROM mcp_tasks") == [(0,)]
    assert naps(root)[-2:] == ["patient0", "patient1"]


def agent_server(tmp_path: Path, plugin: dict[str, str], model: Backend) -> tuple[Path, Path, Any]:
    """A stdio `serve --tools nap --agent openai:small-model` whose model is the loopback
    OpenAI-compatible `model`."""
    agent = ("--agent", "openai:small-model", "--base-url", f"{model.url}/v1")
    env = {**plugin, "OPENAI_API_KEY": "sk-tasks-0123456789"}
    return stdio_server(tmp_path, env, tools=("--tools", "nap", *agent))


def napping_turns(tag: str, seconds: float, answer: str) -> list[Reply]:
    """The model's two turns: it calls `nap` with `tag` for `seconds`, then answers `answer`."""
    arguments = json.dumps({"seconds": seconds, "tag": tag})
    return [
        stream_reply(openai_stream([], [("call_1", "nap", arguments)])),
        stream_reply(openai_stream([answer])),
    ]


async def test_an_agent_call_is_a_task_whose_result_is_the_agents_final_answer(
    tmp_path: Path, plugin: dict[str, str], backend: Backend
) -> None:
    root, data, server = agent_server(tmp_path, plugin, backend)
    backend.push(*napping_turns("p", 0, "Napped as p."))
    async with client(server, tasks=False) as plain:
        answer = await plain.session.call_tool("agent", {"task": "Nap as p, then say so."})
    backend.push(*napping_turns("t", 0.5, "Napped as t."))
    async with client(server) as capable:
        handle = await created(capable, "agent", {"task": "Nap as t, then say so."})
        polled = await settled(capable, handle.task_id)
    assert handle.status == "working"
    assert polled["status"] == "completed"
    assert polled["statusMessage"] == "turn 2: the model answered"
    assert polled["result"]["content"] == [{"type": "text", "text": "Napped as t."}]
    assert polled["result"].get("isError", False) is False
    assert [part.text for part in answer.content] == ["Napped as p."]
    assert naps(root) == ["p", "t"]
    prompts = [request.body["messages"][0]["content"] for request in backend.requests]
    assert prompts == ["Nap as p, then say so."] * 2 + ["Nap as t, then say so."] * 2
    rows = stored(data, "SELECT status, entry FROM mcp_tasks")
    assert [(status, json.loads(entry)["call"]["name"]) for status, entry in rows] == [
        ("completed", "agent")
    ]


async def test_cancelling_an_agent_task_stops_its_run_before_the_next_model_turn(
    tmp_path: Path, plugin: dict[str, str], backend: Backend
) -> None:
    from orkestrel.mcp.task_client import cancel_task

    root, data, server = agent_server(tmp_path, plugin, backend)
    backend.push(*napping_turns("c", 4, "Should never be asked for."))
    async with client(server) as capable:
        handle = await created(capable, "agent", {"task": "Nap as c, then say so."})
        calling = await until_message(capable, handle.task_id, "turn 1: the model called nap")
        await cancel_task(capable.session, handle.task_id)
        cancelled = await settled(capable, handle.task_id, 10)
        # Past the end the nap would have had: a live run would have asked the model again.
        await anyio.sleep(5)
        after = await settled(capable, handle.task_id)
    assert calling["status"] == "working"
    assert cancelled["status"] == after["status"] == "cancelled"
    assert after["statusMessage"] == "cancelled by the client"
    assert "result" not in after
    assert len(backend.requests) == 1
    assert naps(root) == []
    assert stored(data, TASK_ROWS) == [(handle.task_id, "cancelled")]


async def until_message(session: Any, task_id: str, message: str) -> dict[str, Any]:
    """Polls `tasks/get` until the task's status message is `message` (30 s at most)."""
    from orkestrel.mcp.task_client import get_task

    with anyio.fail_after(30):
        while True:
            answer = await get_task(session.session, task_id)
            if answer.get("statusMessage") == message:
                return answer
            assert answer["status"] == "working", answer
            await anyio.sleep(0.1)
