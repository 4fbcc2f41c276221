"""`orkestrel serve --transport http` keeps the events it sends so that a client that lost its
connection in the middle of a call reconnects with `Last-Event-ID` and gets what it missed
(raw HTTP, as a browser's `EventSource` or any client does it), and that a `Last-Event-ID`
naming no event of the reconnecting session is refused."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from orkestrel.cli.serve import run_serve
from support.plugins import tool_plugin
from support.serve_http import parse_serve, served

STEPPED = """
import anyio
from pathlib import Path
from orkestrel.tool import Context, tool

HERE = Path(__file__).parent


@tool
async def stepped(ctx: Context) -> str:
    \"\"\"Reports three steps, waiting for a go file before the second.\"\"\"
    await ctx.report_progress(1, 3, "step 1")
    try:
        while not (HERE / "go.mark").exists():
            await anyio.sleep(0.05)
    except anyio.get_cancelled_exc_class():
        (HERE / "cancelled.mark").write_text("cancelled")
        raise
    await ctx.report_progress(2, 3, "step 2")
    await ctx.report_progress(3, 3, "step 3")
    (HERE / "done.mark").write_text("done")
    return "all three steps done"


def steps(context):
    return stepped
"""

VERSION = "2025-11-25"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def events(response: httpx.Response) -> Iterator[tuple[str | None, Any]]:
    """The `(id, message)` of each server-sent event of `response` as it arrives; the message
    is `None` for an event with empty data (the priming event)."""
    id: str | None = None
    data: list[str] = []
    for line in response.iter_lines():
        if line.startswith("id:"):
            id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "":
            if id is not None or data:
                text = "\n".join(data)
                yield id, json.loads(text) if text else None
            id, data = None, []


def open_session(client: httpx.Client, url: str) -> dict[str, str]:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": VERSION,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    opened = client.post(url, json=initialize, headers=HEADERS)
    assert opened.status_code == 200, opened.text
    session = {
        **HEADERS,
        "Mcp-Session-Id": opened.headers["mcp-session-id"],
        "Mcp-Protocol-Version": VERSION,
    }
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert client.post(url, json=initialized, headers=session).status_code == 202
    return session


def call_until_first_step(client: httpx.Client, url: str, session: dict[str, str]) -> str:
    """Calls `stepped` with a progress token, reads its stream up to the first progress
    notification and drops the connection; gives that notification's event id."""
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "stepped", "arguments": {}, "_meta": {"progressToken": "p"}},
    }
    with client.stream("POST", url, json=call, headers=session) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for id, message in events(response):
            if message is not None and message.get("method") == "notifications/progress":
                assert message["params"]["message"] == "step 1"
                assert id is not None
                return id
    raise AssertionError("the call's stream ended before its first step")


def resume(client: httpx.Client, url: str, session: dict[str, str], last: str) -> list[Any]:
    """The messages a reconnection from event `last` replays and sends, up to the answer to
    call 7."""
    missed: list[Any] = []
    with client.stream("GET", url, headers={**session, "Last-Event-ID": last}) as response:
        assert response.status_code == 200, response.read()
        for _, message in events(response):
            if message is not None:
                missed.append(message)
            if message is not None and message.get("id") == 7:
                break
    return missed


@contextmanager
def stepping(tmp_path: Path, *argv: str) -> Iterator[tuple[httpx.Client, str]]:
    """Serves the `stepped` tool (with `argv`) as a process; yields a raw HTTP client and the
    MCP endpoint's URL."""
    env = tool_plugin(tmp_path, STEPPED, "steps")
    with (
        served(tmp_path, "--tools", "steps", *argv, env=env) as (_, base),
        httpx.Client(timeout=30) as client,
    ):
        yield client, f"{base}/mcp"


def refused_line(client: httpx.Client, url: str, session: dict[str, str], last: str) -> str:
    """The error line of a reconnection from `last` that must be refused with 400."""
    refused = client.get(url, headers={**session, "Last-Event-ID": last})
    assert refused.status_code == 400, (last, refused.text)
    assert "step" not in refused.text
    line: str = refused.json()["error"]["message"]
    return line


def test_a_client_reconnecting_with_last_event_id_gets_the_events_it_missed(
    tmp_path: Path,
) -> None:
    with stepping(tmp_path) as (client, url):
        session = open_session(client, url)
        last = call_until_first_step(client, url, session)
        # The client is gone; the call goes on and sends steps 2 and 3 and its answer.
        (tmp_path / "go.mark").write_text("go")
        wait_for(tmp_path / "done.mark")
        missed = resume(client, url, session, last)
    progress = [
        m["params"]["message"] for m in missed if m.get("method") == "notifications/progress"
    ]
    assert progress == ["step 2", "step 3"]
    answer = missed[-1]
    assert answer["id"] == 7
    assert answer["result"]["content"] == [{"type": "text", "text": "all three steps done"}]
    assert answer["result"].get("isError") is not True


def test_a_last_event_id_of_no_event_of_the_session_is_refused(tmp_path: Path) -> None:
    with stepping(tmp_path) as (client, url):
        first = open_session(client, url)
        last = call_until_first_step(client, url, first)
        other = open_session(client, url)
        for forged in (last, "999999999", "-1", "abc", "1 OR 1=1", "9" * 400):
            line = refused_line(client, url, other, forged)
            assert line.startswith("Last-Event-ID ")
            assert "names no event this session kept" in line
        # The session that owns the event still resumes from it.
        (tmp_path / "go.mark").write_text("go")
        with client.stream("GET", url, headers={**first, "Last-Event-ID": last}) as response:
            assert response.status_code == 200
            for _, message in events(response):
                if message is not None and message.get("id") == 7:
                    break
        assert message["result"]["content"][0]["text"] == "all three steps done"


def test_an_event_past_the_kept_bounds_is_refused_like_an_unknown_one(tmp_path: Path) -> None:
    with stepping(tmp_path, "--events-per-stream", "2") as (client, url):
        session = open_session(client, url)
        last = call_until_first_step(client, url, session)
        (tmp_path / "go.mark").write_text("go")
        wait_for(tmp_path / "done.mark")
        # Steps 2 and 3 and the answer followed step 1 on its stream: only the last 2 are kept.
        assert "names no event this session kept" in refused_line(client, url, session, last)


def test_a_kept_event_expires_after_its_ttl(tmp_path: Path) -> None:
    with stepping(tmp_path, "--event-ttl", "1") as (client, url):
        session = open_session(client, url)
        last = call_until_first_step(client, url, session)
        time.sleep(1.5)
        assert "names no event this session kept" in refused_line(client, url, session, last)
        (tmp_path / "go.mark").write_text("go")


def test_a_dropped_call_that_is_never_resumed_is_cancelled_after_the_window(
    tmp_path: Path,
) -> None:
    with stepping(tmp_path, "--resume-seconds", "1") as (client, url):
        session = open_session(client, url)
        call_until_first_step(client, url, session)
        wait_for(tmp_path / "cancelled.mark")
        assert not (tmp_path / "done.mark").exists()


def wait_for(mark: Path) -> None:
    deadline = time.monotonic() + 30
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mark.exists(), f"{mark.name} never appeared"


@pytest.mark.parametrize(
    "argv",
    [["--resume-seconds", "5"], ["--event-ttl", "5"], ["--events-per-stream", "5"]],
)
def test_the_resumability_options_need_http(argv: list[str]) -> None:
    err = io.StringIO()
    status = anyio.run(lambda: run_serve(parse_serve(*argv), stderr=err))
    assert status == 2
    assert err.getvalue() == f"orkestrel serve: {argv[0]} needs --transport http\n"


def test_a_dropped_call_cancelled_after_the_window_ends_the_resumed_stream_with_an_error(
    tmp_path: Path,
) -> None:
    with stepping(tmp_path, "--resume-seconds", "1") as (client, url):
        session = open_session(client, url)
        last = call_until_first_step(client, url, session)
        wait_for(tmp_path / "cancelled.mark")
        missed = resume(client, url, session, last)
    assert missed[-1] == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32800, "message": "Request cancelled"},
    }


def test_a_call_the_client_cancels_ends_its_stream_with_an_error_for_its_id(
    tmp_path: Path,
) -> None:
    with stepping(tmp_path) as (client, url):
        session = open_session(client, url)
        call = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "stepped", "arguments": {}, "_meta": {"progressToken": "p"}},
        }
        cancel = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "the user stopped it"},
        }
        received: list[Any] = []
        with client.stream("POST", url, json=call, headers=session) as response:
            for _, message in events(response):
                if message is None:
                    continue
                received.append(message)
                if message.get("method") == "notifications/progress":
                    assert client.post(url, json=cancel, headers=session).status_code == 202
                if message.get("id") == 7:
                    break
        wait_for(tmp_path / "cancelled.mark")
    assert received[-1] == {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32800, "message": "Request cancelled"},
    }
    assert not (tmp_path / "done.mark").exists()
