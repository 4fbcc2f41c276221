"""With `--database` (PostgreSQL) or `--durable-events` (the SQLite file under `--data`),
`orkestrel serve` keeps the events it sends in the store of the workflow runs: a client that
lost its connection in the middle of a call reconnects with `Last-Event-ID` to another server
on that store, or to this one killed and restarted, and gets the events it missed."""

from __future__ import annotations

import functools
import os
import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn

from support.mcp_client import connect, wire
from support.plugins import tool_plugin
from support.postgres import fresh_database
from support.resume import (
    STEPPED,
    assert_rest_of_the_call,
    call_until_first_step,
    missed,
    open_session,
    wait_for,
)
from support.serve_http import served


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: Any, tmp_path: Path) -> Iterator[list[str]]:
    """The options that put two servers on one durable event store."""
    if request.param == "sqlite":
        yield ["--durable-events", "--data", str(tmp_path / "data")]
        return
    with fresh_database("events") as dsn:
        yield ["--database", dsn]


@contextmanager
def server(tmp_path: Path, *argv: str) -> Iterator[tuple[int, str]]:
    env = tool_plugin(tmp_path, STEPPED, "steps")
    with served(tmp_path, "--tools", "steps", *argv, env=env) as (pid, base):
        yield pid, f"{base}/mcp"


def test_a_reconnection_to_another_server_on_the_store_gets_the_rest_of_the_call(
    tmp_path: Path, store: list[str]
) -> None:
    with ExitStack() as stack:
        _, first = stack.enter_context(server(tmp_path, *store, "--resume-seconds", "2"))
        _, second = stack.enter_context(server(tmp_path, *store))
        client = stack.enter_context(httpx.Client(timeout=60))
        session = open_session(client, first)
        last = call_until_first_step(client, first, session)
        # Forged ids on the other server get no events.
        for forged in (str(int(last) + 10**9), "abc", "9" * 400):
            refused = client.get(second, headers={**session, "Last-Event-ID": forged})
            assert refused.status_code == 404, refused.text
            assert "step" not in refused.text
        for odd in ("a b", "x" * 5000, session["Mcp-Session-Id"] + "%00"):
            headers = {**session, "Mcp-Session-Id": odd, "Last-Event-ID": last}
            refused = client.get(second, headers=headers)
            assert refused.status_code in (400, 404), refused.text
            assert "step" not in refused.text
        # The call goes on past the first server's 2 s window: the reconnection to the second
        # server is what keeps it running.
        go = threading.Timer(4, (tmp_path / "go.mark").write_text, ["go"])
        go.start()
        try:
            messages = missed(client, second, session, last)
        finally:
            go.cancel()
    assert_rest_of_the_call(messages)
    assert not (tmp_path / "cancelled.mark").exists()


def test_a_reconnection_to_a_server_killed_and_restarted_gets_what_it_kept(
    tmp_path: Path, store: list[str]
) -> None:
    with httpx.Client(timeout=60) as client:
        with server(tmp_path, *store) as (pid, url):
            session = open_session(client, url)
            last = call_until_first_step(client, url, session)
            (tmp_path / "go.mark").write_text("go")
            wait_for(tmp_path / "done.mark")
            # Once the answer has reached a client it is kept; then the server dies.
            before = missed(client, url, session, last)
            os.kill(pid, signal.SIGKILL)
        with server(tmp_path, *store) as (_, restarted):
            messages = missed(client, restarted, session, last)
    assert_rest_of_the_call(before)
    assert messages == before


class Switch:
    """A reverse proxy in front of two servers: everything goes to `first` until the call's
    stream carries its first step; that stream is then ended (as a dropped connection ends
    it) and everything after, the client's reconnection included, goes to `second`."""

    def __init__(self, first: str, second: str, go: Path) -> None:
        self.upstream = first
        self.second = second
        self.go = go
        self.http = httpx.AsyncClient(timeout=60)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        skip = (b"host", b"content-length")
        headers = [(k, v) for k, v in scope["headers"] if k.lower() not in skip]
        url = self.upstream + scope["path"]
        request = self.http.build_request(scope["method"], url, content=body, headers=headers)
        response = await self.http.send(request, stream=True)
        try:
            dropped = (b"content-length", b"transfer-encoding", b"connection")
            answer = [(k, v) for k, v in response.headers.raw if k.lower() not in dropped]
            start = {"type": "http.response.start", "status": response.status_code}
            await send({**start, "headers": answer})
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if b"step 1" in chunk and self.upstream != self.second:
                    self.upstream = self.second
                    threading.Timer(4, self.go.write_text, ["go"]).start()
                    break
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await response.aclose()


async def fastmcp_call(url: str, progress: Any) -> dict[str, Any]:
    """`stepped` called by the fastmcp client over streamable HTTP, as wire JSON."""
    from fastmcp import Client

    async with Client(url) as client:
        await client.list_tools()
        answer = await client.call_tool_mcp("stepped", {}, progress_handler=progress)
    return wire(answer)  # type: ignore[no-any-return]


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["sdk", "fastmcp"])
async def test_the_client_resumes_its_call_on_another_server_by_itself(
    tmp_path: Path, store: list[str], kind: str
) -> None:
    if kind == "fastmcp":
        pytest.importorskip("fastmcp", reason="the fastmcp client needs the 2.x SDK line")
    steps: list[str | None] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        steps.append(message)

    with ExitStack() as stack:
        _, first = stack.enter_context(server(tmp_path, *store, "--resume-seconds", "2"))
        _, second = stack.enter_context(server(tmp_path, *store))
        switch = Switch(
            first.removesuffix("/mcp"), second.removesuffix("/mcp"), tmp_path / "go.mark"
        )
        listening = socket.socket()
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        config = uvicorn.Config(switch, lifespan="off", log_level="warning")
        config.timeout_graceful_shutdown = 1
        proxy = uvicorn.Server(config)
        port = listening.getsockname()[1]
        async with anyio.create_task_group() as group:
            group.start_soon(functools.partial(proxy.serve, sockets=[listening]))
            url = f"http://127.0.0.1:{port}/mcp"
            if kind == "sdk":
                async with connect(url, mode="legacy") as client:
                    # Listed first, so the client checks the result against its cached
                    # listing rather than asking the server that does not hold its session.
                    await client.list_tools()
                    result = await client.call_tool("stepped", {}, progress=progress)
            else:
                # fastmcp 4.2 speaks the 2026-07-28 era, which has no event ids to resume
                # with: its dropped call ends, and nothing comes from the other server.
                with pytest.raises(Exception, match="SSE stream ended without a response"):
                    await fastmcp_call(url, progress)
                result = None
            proxy.should_exit = True
        await switch.http.aclose()
    if result is None:
        assert steps == ["step 1"]
        return
    assert result["content"] == [{"type": "text", "text": "all three steps done"}]
    assert result.get("isError") is not True
    assert steps == ["step 1", "step 2", "step 3"]
    assert switch.upstream == switch.second
    assert not (tmp_path / "cancelled.mark").exists()
