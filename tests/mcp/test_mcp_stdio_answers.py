"""`orkestrel serve` over stdio answers what JSON-RPC says it must: a line it cannot parse gets
-32700 with id null, and a `tools/list` cursor it never issued gets -32602."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def exchange(tmp_path: Path, lines: list[bytes], count: int) -> list[dict[str, Any]]:
    """Writes `lines` to a served process after the handshake; gives its first `count` answers
    after the handshake's."""
    process = subprocess.Popen(
        [sys.executable, "-m", "orkestrel", "serve", "--root", str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    try:
        head = [json.dumps(INITIALIZE).encode(), json.dumps(INITIALIZED).encode()]
        for line in [*head, *lines]:
            process.stdin.write(line + b"\n")
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(count + 1)]
    finally:
        watchdog.cancel()
        process.kill()
        process.communicate(timeout=15)
    return answers[1:]


def test_truncated_request_with_an_id_gets_parse_error_with_null_id(tmp_path: Path) -> None:
    truncated = b'{"jsonrpc":"2.0","id":7,"method":"tools/list"'
    after = b'{"jsonrpc":"2.0","id":8,"method":"tools/list"}'
    refused, listed = exchange(tmp_path, [truncated, after], 2)
    assert refused["id"] is None
    assert refused["error"]["code"] == -32700
    assert refused["error"]["message"].startswith("parse error: ")
    assert listed["id"] == 8
    assert "tools" in listed["result"]


def test_request_with_an_unusable_id_gets_invalid_request_with_null_id(tmp_path: Path) -> None:
    odd = b'{"jsonrpc":"1.0","id":{"n":1},"method":"tools/list"}'
    (refused,) = exchange(tmp_path, [odd], 1)
    assert (refused["id"], refused["error"]["code"]) == (None, -32600)


def test_tools_list_cursor_never_issued_gets_invalid_params(tmp_path: Path) -> None:
    paged = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "page-9"}}
    (refused,) = exchange(tmp_path, [json.dumps(paged).encode()], 1)
    assert refused["id"] == 2
    assert refused["error"]["code"] == -32602
    assert refused["error"]["message"] == (
        "invalid params: this server never issued that cursor (it lists every tool on one page)"
    )
