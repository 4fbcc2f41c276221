"""`orkestrel serve --transport http` keeps the events it sends so that a client that lost its
connection in the middle of a call reconnects with `Last-Event-ID` and gets what it missed
(raw HTTP, as a browser's `EventSource` or any client does it), and that a `Last-Event-ID`
naming no event of the reconnecting session is refused."""

from __future__ import annotations

import io
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
from support.resume import (
    STEPPED,
    assert_rest_of_the_call,
    call_until_first_step,
    events,
    missed,
    open_session,
    wait_for,
)
from support.serve_http import parse_serve, served


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
        messages = missed(client, url, session, last)
    assert_rest_of_the_call(messages)


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


@pytest.mark.parametrize(
    "argv",
    [
        ["--resume-seconds", "5"],
        ["--event-ttl", "5"],
        ["--events-per-stream", "5"],
        ["--durable-events"],
    ],
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
        messages = missed(client, url, session, last)
    assert messages[-1] == {
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
