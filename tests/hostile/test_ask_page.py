"""`orkestrel serve --transport http --ask` against hostile answers and pages: an answer that
holds a lone surrogate, a model that parks too many or too large forms, and pages that never
read their stream."""

from __future__ import annotations

import io
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from orkestrel.cli.serve import run_serve
from support.mcp_client import Session, connect, text
from support.serve_http import http_server, parse_serve

pytestmark = pytest.mark.anyio

# A password field is never elicited, so the form waits on the page.
SCHEMA: Any = {"fields": [{"control": "password", "name": "secret", "label": "Secret"}]}


@asynccontextmanager
async def asked(*argv: str) -> AsyncIterator[tuple[Session, httpx.AsyncClient]]:
    """Serves `--ask` over HTTP; yields the SDK's client and a client of the page's routes."""
    async with (
        http_server("--ask", *argv) as (url, _),
        connect(url) as client,
        httpx.AsyncClient(base_url=url.removesuffix("/mcp"), timeout=30) as web,
    ):
        yield client, web


async def next_form_id(web: httpx.AsyncClient) -> str:
    """Opens the page's stream and gives the id of the first form it carries."""
    async with web.stream("GET", "/terminals/user") as stream:
        async for line in stream.aiter_lines():
            if line.startswith("data: "):
                return str(json.loads(line[6:])["id"])
    raise AssertionError("the stream ended without a form")


async def test_an_answer_with_a_lone_surrogate_is_refused_and_the_form_stays_open() -> None:
    async with asked() as (client, web), anyio.create_task_group() as group:
        result: dict[str, Any] = {}

        async def ask() -> None:
            result["value"] = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})

        group.start_soon(ask)
        id = await next_form_id(web)
        # json.dumps escapes the lone surrogate as `\ud800`, as a hostile page would send it.
        body = json.dumps({"id": id, "values": {"secret": "x\ud800y"}})
        refused = await web.post(
            "/terminals/user", content=body, headers={"content-type": "application/json"}
        )
        assert refused.status_code == 422
        [fault] = refused.json()["error"]["errors"]
        assert fault["field"] == "secret"
        assert fault["message"].startswith("The answer holds a lone surrogate")
        assert await next_form_id(web) == id
        posted = await web.post("/terminals/user", json={"id": id, "values": {"secret": "ok"}})
        assert posted.status_code == 200
    assert result["value"].get("isError", False) is False
    assert json.loads(text(result["value"])) == {"secret": "ok"}


async def parked(web: httpx.AsyncClient) -> int:
    """How many forms a fresh stream replays (it stops at the first keepalive or live frame
    after the replay: a short read timeout ends it)."""
    count = 0
    try:
        async with web.stream("GET", "/terminals/user", timeout=httpx.Timeout(30, read=0.5)) as s:
            async for line in s.aiter_lines():
                count += line == "event: pending"
    except httpx.ReadTimeout:
        pass
    return count


async def until_parked(web: httpx.AsyncClient, count: int) -> None:
    """Returns once `count` forms are parked; fails after 60 s."""
    with anyio.fail_after(60):
        while await parked(web) < count:  # noqa: ASYNC110 - counted over HTTP
            await anyio.sleep(0.2)


def drain(connection: socket.socket) -> tuple[int, bool]:
    """Reads `connection` until the server closes it (`True`) or 5 s pass without a byte
    (`False`); gives how many bytes came too."""
    connection.settimeout(5)
    total = 0
    try:
        while chunk := connection.recv(1 << 16):
            total += len(chunk)
    except TimeoutError:
        return total, False
    except OSError:
        return total, True
    return total, True


def big_schema(size: int) -> Any:
    """A form whose schema is about `size` bytes of JSON, in its fields' help texts."""
    count = -(-size // 50_000)
    fields = [
        {"control": "password", "name": f"f{index}", "help": "x" * (size // count)}
        for index in range(count)
    ]
    return {"fields": fields}


async def test_a_form_schema_past_the_size_limit_is_refused_naming_the_option() -> None:
    async with asked() as (client, _):
        refused = await client.call_tool("ask", {"to": "user", "schema": big_schema(1_000_000)})
    assert refused.get("isError") is True
    assert "over the terminal's limit of 262144 (max_bytes)" in text(refused)
    assert "--ask-max-form-bytes" in text(refused)


async def test_forms_past_the_parked_form_cap_are_refused_naming_the_option() -> None:
    async with (
        asked("--ask-max-forms", "2") as (client, web),
        anyio.create_task_group() as group,
    ):
        for _ in range(2):
            group.start_soon(client.call_tool, "ask", {"to": "user", "schema": SCHEMA})
        await until_parked(web, 2)
        third = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
        group.cancel_scope.cancel()
    assert "the terminal already holds 2 forms, its limit (cap)" in text(third)
    assert "--ask-max-forms" in text(third)


async def test_a_page_stream_that_never_reads_is_dropped_past_its_buffer() -> None:
    async with (
        asked("--ask-stream-buffer", "65536") as (client, web),
        anyio.create_task_group() as group,
    ):
        parts = httpx.URL(str(web.base_url))
        reader = socket.socket()
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        reader.connect((parts.host, parts.port))
        reader.sendall(
            f"GET /terminals/user HTTP/1.1\r\nHost: 127.0.0.1:{parts.port}\r\n\r\n".encode()
        )
        try:
            for _ in range(40):
                group.start_soon(
                    client.call_tool, "ask", {"to": "user", "schema": big_schema(200_000)}
                )
            await until_parked(web, 40)
            received, ended = await anyio.to_thread.run_sync(drain, reader)
        finally:
            reader.close()
            group.cancel_scope.cancel()
    assert ended, "the stream of a page that never read was still open"
    assert received < 40 * 200_000


async def test_a_frame_ancestor_that_would_split_the_policy_stops_the_server() -> None:
    err = io.StringIO()
    argv = ["--transport", "http", "--port", "0", "--ask", "--tools", "infer"]
    options = parse_serve(*argv, "--ask-frame-ancestor", "https://a.example; script-src *")
    assert await run_serve(options, stderr=err) == 2
    assert err.getvalue().startswith(
        "orkestrel serve: --ask-frame-ancestor: a frame ancestor is one CSP source"
    )
