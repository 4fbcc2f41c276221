"""With `--database` (PostgreSQL) or `--durable-events` (the SQLite file under `--data`),
`orkestrel serve` keeps the events it sends in the store of the workflow runs: a client that
lost its connection in the middle of a call reconnects with `Last-Event-ID` to another server
on that store, or to this one killed and restarted, and gets the events it missed."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

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
