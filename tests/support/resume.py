"""A served tool that reports three steps, and the raw HTTP of a client that drops its
connection in the middle of the call and reconnects with `Last-Event-ID`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

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


def wait_for(mark: Path) -> None:
    deadline = time.monotonic() + 30
    while not mark.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mark.exists(), f"{mark.name} never appeared"


def missed(client: httpx.Client, url: str, session: dict[str, str], last: str) -> list[Any]:
    """The messages a reconnection from `last` to `url` gets, up to the call's answer."""
    got: list[Any] = []
    with client.stream("GET", url, headers={**session, "Last-Event-ID": last}) as response:
        assert response.status_code == 200, response.read()
        for _, message in events(response):
            if message is not None:
                got.append(message)
            if message is not None and message.get("id") == 7:
                break
    return got


def assert_rest_of_the_call(messages: list[Any]) -> None:
    progress = [
        m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"
    ]
    assert progress == ["step 2", "step 3"], messages
    assert messages[-1]["id"] == 7
    assert messages[-1]["result"]["content"] == [{"type": "text", "text": "all three steps done"}]
    assert messages[-1]["result"].get("isError") is not True
