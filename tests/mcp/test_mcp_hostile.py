"""Hostile bytes on the wire: the served process answers what it can, drops what it cannot
parse, and keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.mcp_client import connect, stdio

APP = Path(__file__).resolve().parent / "app.py"
DEEP = 100_000


def rpc(id_: int, method: str, params: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()


def deep_call(id_: int) -> bytes:
    prefix = f'{{"jsonrpc":"2.0","id":{id_},"method":"tools/call","params":'
    body = '{"name":"echo","arguments":{"a":' + "[" * DEEP + "]" * DEEP + "}}}"
    return (prefix + body).encode()


def test_stdio_answers_every_request_the_sdk_would_drop() -> None:
    process = subprocess.Popen(
        [sys.executable, str(APP)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    watchdog = threading.Timer(60, process.kill)
    watchdog.start()
    lines = [
        rpc(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "hostile", "version": "0"},
            },
        ),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        deep_call(2),
        b"\xff\xfe not json at all",
        rpc(3, "tools/call", {"name": "echo", "arguments": [1, 2]}),
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo",'
        b'"arguments":{"s":"\\ud800"}}}',
        rpc(5, "tools/call", {"name": "echo", "arguments": {"s": "x" * 2_000_000}}),
        rpc(6, "tools/call", {"name": "add", "arguments": {"left": 1, "right": 2}}),
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["echo",{}]}',
        b'{"jsonrpc":"1.0","id":8,"method":"tools/call","params":{"name":"echo"}}',
        b'{"id":"nine","method":"tools/call","params":{"name":"echo"}}',
        b'{"jsonrpc":"2.0","id":10,"result":{}, "extra": [[[]]]}',
        b'{"jsonrpc":"2.0","method":"notifications/odd","params":[1]}',
        rpc(11, "tools/call", {"name": "add", "arguments": {"left": 2, "right": 2}}),
    ]
    try:
        for line in lines:
            process.stdin.write(line + b"\n")
        process.stdin.flush()
        answers: dict[Any, dict[str, Any]] = {}
        while not {2, 3, 4, 5, 6, 7, 8, "nine", 11} <= answers.keys():
            line = process.stdout.readline()
            assert line, "the server closed its output"
            message = json.loads(line)
            answers[message.get("id")] = message
    finally:
        watchdog.cancel()
        process.kill()
        process.communicate(timeout=15)
    assert answers[3]["error"]["code"] == -32602
    assert answers[5]["result"]["structuredContent"] == {"s": "x" * 2_000_000}
    assert answers[6]["result"]["content"] == [{"type": "text", "text": "3"}]
    assert answers[11]["result"]["content"] == [{"type": "text", "text": "4"}]
    assert answers[2]["error"] == {
        "code": -32700,
        "message": "parse error: the message nests deeper than the parser allows",
    }
    assert answers[4]["error"] == {
        "code": -32600,
        "message": "invalid request: a string holds a lone UTF-16 surrogate",
    }
    assert answers[7]["error"] == {
        "code": -32600,
        "message": "invalid request: params must be an object",
    }
    for ident in (8, "nine"):
        assert answers[ident]["error"] == {
            "code": -32600,
            "message": 'invalid request: "jsonrpc" must be "2.0"',
        }
    assert 10 not in answers


@pytest.mark.anyio
async def test_http_refuses_unparseable_bodies_and_keeps_serving(
    app_url: str, http_post: Callable[..., tuple[int, bytes]]
) -> None:
    deep = http_post(app_url, deep_call(2))
    garbage = http_post(app_url, b"\xff\xfe")
    assert (deep[0], json.loads(deep[1])["error"]["code"]) == (400, -32700)
    assert (garbage[0], json.loads(garbage[1])["error"]["code"]) == (400, -32700)
    async with connect(app_url) as client:
        answer = await client.call_tool("add", {"left": 2, "right": 2})
    assert answer["content"] == [{"type": "text", "text": "4"}]


@pytest.mark.anyio
async def test_stray_prints_never_reach_the_stdio_stream() -> None:
    parameters = stdio(sys.executable, [str(APP)])
    async with connect(parameters) as client:
        noisy = await client.call_tool("noisy", {})
        after = await client.call_tool("add", {"left": 1, "right": 1})
    assert noisy["content"] == [{"type": "text", "text": "quiet"}]
    assert after["content"] == [{"type": "text", "text": "2"}]
