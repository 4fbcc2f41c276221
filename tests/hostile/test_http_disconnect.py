"""`orkestrel serve --transport http` when a client drops its connection in the middle of a
tool call without cancelling it: the call is cancelled at once instead of running on until
the session idles out."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from support.plugins import tool_plugin
from support.serve_http import INITIALIZE, served

WATCHED = """
import anyio
from pathlib import Path
from orkestrel.tool import create_tool

MARK = Path(__file__).with_name("cancelled.mark")


async def wait(args):
    MARK.with_name("started.mark").write_text("started")
    try:
        await anyio.sleep(120)
    except anyio.get_cancelled_exc_class():
        MARK.write_text("cancelled")
        raise
    return "waited"


def watched(context):
    return create_tool(name="wait", execute=wait)
"""

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def open_session(url: str) -> dict[str, str]:
    """Initializes a session over raw HTTP; gives the headers that continue it."""
    with httpx.Client(timeout=10) as client:
        opened = client.post(url, json=INITIALIZE, headers=HEADERS)
        assert opened.status_code == 200, opened.text
        session = {
            **HEADERS,
            "Mcp-Session-Id": opened.headers["mcp-session-id"],
            "Mcp-Protocol-Version": "2025-06-18",
        }
        initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert client.post(url, json=initialized, headers=session).status_code == 202
    return session


def test_a_call_whose_client_drops_the_connection_is_cancelled_within_seconds(
    tmp_path: Path,
) -> None:
    env = tool_plugin(tmp_path, WATCHED, "watched")
    mark = tmp_path / "cancelled.mark"
    with served(tmp_path, "--tools", "watched", env=env) as (_, base):
        url = f"{base}/mcp"
        session = open_session(url)
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "wait"}}
        body = json.dumps(call).encode()
        parts = urlsplit(url)
        head = f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in session.items())
        head += f"Content-Length: {len(body)}\r\n\r\n"
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as connection:
            connection.sendall(head.encode() + body)
            time.sleep(1)  # the call is running; the client goes away without a word
        assert mark.with_name("started.mark").exists()
        dropped = time.monotonic()
        while not mark.exists() and time.monotonic() - dropped < 10:
            time.sleep(0.05)
        assert mark.exists(), "the call still ran 10 s after its client dropped the connection"
        assert time.monotonic() - dropped < 5
