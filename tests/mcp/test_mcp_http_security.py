"""The HTTP transport's guard: a bearer token, `Host` and `Origin` checks, refusal to serve
another interface without a token, and extra routes behind the same checks; real uvicorn on
a free loopback port."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from types import ModuleType
from typing import Any

import anyio
import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from orkestrel.mcp import serve
from support.mcp_client import connect, text
from support.serve_http import INITIALIZE as INITIALIZE_REQUEST
from support.serve_http import serving_manager

pytestmark = pytest.mark.anyio

INITIALIZE = json.dumps(INITIALIZE_REQUEST).encode()

Post = Callable[..., tuple[int, bytes]]


async def hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello from beside /mcp")


def served(app: ModuleType, **options: Any) -> AbstractAsyncContextManager[str]:
    return serving_manager(app.build(), **options)


async def post(http_post: Post, url: str, **headers: str) -> tuple[int, bytes]:
    return await anyio.to_thread.run_sync(lambda: http_post(url, INITIALIZE, headers))


async def test_a_token_is_required_on_every_route(app: ModuleType, http_post: Post) -> None:
    routes = [Route("/hello", hello, methods=["POST"])]
    async with served(app, token="s3cret", routes=routes) as url:
        bare = await post(http_post, url)
        wrong = await post(http_post, url, Authorization="Bearer nope")
        basic = await post(http_post, url, Authorization="Basic czNjcmV0")
        right = await post(http_post, url, Authorization="Bearer s3cret")
        side = url.removesuffix("/mcp") + "/hello"
        side_bare = await anyio.to_thread.run_sync(lambda: http_post(side, b""))
        side_right = await anyio.to_thread.run_sync(
            lambda: http_post(side, b"", {"Authorization": "Bearer s3cret"})
        )
        async with connect(url, headers={"Authorization": "Bearer s3cret"}) as client:
            answer = await client.call_tool("add", {"left": 2, "right": 3})
    for status, body in (bare, wrong, basic, side_bare):
        assert status == 401
        assert json.loads(body)["error"]["message"] == "missing or wrong bearer token"
    assert right[0] == 200
    assert side_right == (200, b"hello from beside /mcp")
    assert text(answer) == "5"


async def test_foreign_host_and_origin_are_refused(app: ModuleType, http_post: Post) -> None:
    async with served(app) as url:
        port = url.split(":")[2].split("/")[0]
        rebound = await post(http_post, url, Host=f"evil.example:{port}")
        foreign = await post(http_post, url, Origin="http://evil.example")
        sneaky = await post(http_post, url, Origin="http://127.0.0.1.evil.example")
        itself = await post(http_post, url, Origin=f"http://127.0.0.1:{port}")
        plain = await post(http_post, url)
    assert rebound[0] == 421
    assert json.loads(rebound[1])["error"]["message"].startswith("unknown Host header")
    assert foreign[0] == sneaky[0] == 403
    assert itself[0] == plain[0] == 200


async def test_a_host_with_text_after_the_ipv6_bracket_or_a_bad_port_is_refused(
    app: ModuleType, http_post: Post
) -> None:
    async with served(app) as url:
        port = url.split(":")[2].split("/")[0]
        statuses = [
            (await post(http_post, url, Host=host))[0]
            for host in ["[::1]evil", f"[::1]evil:{port}", f"127.0.0.1:{port}x", "[::1"]
        ]
        fine = await post(http_post, url, Host=f"[::1]:{port}")
    assert statuses == [421, 421, 421, 421]
    assert fine[0] == 200


async def test_an_origin_on_another_loopback_port_or_a_lookalike_name_is_refused(
    app: ModuleType, http_post: Post
) -> None:
    async with served(app, allowed_origins=["http://localhost:6274"]) as url:
        port = int(url.split(":")[2].split("/")[0])
        origins = [
            f"http://127.0.0.1:{port + 1}",
            "http://localhost:6275",
            "http://[::1].evil.com",
            f"http://[::1].evil.com:{port}",
            f"https://127.0.0.1:{port}",
            f"http://user@127.0.0.1:{port}",
            "null",
        ]
        refused = [(await post(http_post, url, Origin=origin))[0] for origin in origins]
        inspector = await post(http_post, url, Origin="http://localhost:6274")
        same = await post(http_post, url, Origin=f"http://127.0.0.1:{port}")
    assert refused == [403] * len(origins)
    assert (inspector[0], same[0]) == (200, 200)


async def test_allowed_hosts_and_origins_extend_the_defaults(
    app: ModuleType, http_post: Post
) -> None:
    options = {"allowed_hosts": ["mcp.internal"], "allowed_origins": ["https://app.example"]}
    async with served(app, **options) as url:
        named = await post(http_post, url, Host="mcp.internal")
        app_page = await post(http_post, url, Origin="https://app.example")
        other = await post(http_post, url, Origin="https://other.example")
    assert (named[0], app_page[0], other[0]) == (200, 200, 403)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10"])
async def test_another_interface_without_a_token_is_refused(app: ModuleType, host: str) -> None:
    with pytest.raises(ValueError, match=f"refusing to serve HTTP on {host} without a token"):
        await serve(app.build(), "http", host=host, port=0)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("header_timeout", 0, "header_timeout must be a positive number of seconds, got 0"),
        ("keepalive_timeout", float("inf"), "keepalive_timeout must be a positive number"),
        ("max_connections", 0, "max_connections must be a positive integer, got 0"),
    ],
)
async def test_connection_bounds_out_of_range_are_refused(
    app: ModuleType, option: str, value: Any, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        await serve(app.build(), "http", port=0, **{option: value})


async def test_a_wildcard_bind_with_a_token_serves(app: ModuleType, http_post: Post) -> None:
    async with served(app, host="0.0.0.0", token="t") as url:
        loopback = url.replace("0.0.0.0", "127.0.0.1")
        refused = await post(http_post, loopback)
        answered = await post(http_post, loopback, Authorization="Bearer t")
    assert (refused[0], answered[0]) == (401, 200)
