"""Cross-origin access for `allowed_origins` (`--allow-origin`): preflights are answered
without the token, and only an allowed origin gets `Access-Control-*` headers; real uvicorn
on a free loopback port, raw HTTP as a browser sends it."""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from types import ModuleType
from typing import Any

import httpx
import pytest

from support.serve_http import INITIALIZE, serving_manager

pytestmark = pytest.mark.anyio

APP_ORIGIN = "https://app.example"

PREFLIGHT = {
    "Origin": APP_ORIGIN,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
}

ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def served(app: ModuleType, **options: Any) -> AbstractAsyncContextManager[str]:
    return serving_manager(app.build(), **options)


async def test_an_allowed_origin_preflight_is_answered_without_the_token(app: ModuleType) -> None:
    async with (
        served(app, token="s3cret", allowed_origins=[APP_ORIGIN]) as url,
        httpx.AsyncClient() as http,
    ):
        answer = await http.options(url, headers=PREFLIGHT)
    assert answer.status_code == 204
    assert answer.headers["access-control-allow-origin"] == APP_ORIGIN
    assert "POST" in answer.headers["access-control-allow-methods"]
    allowed = {name.strip() for name in answer.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "mcp-protocol-version", "mcp-session-id"} <= allowed
    assert answer.headers["vary"] == "Origin"


async def test_a_foreign_origin_gets_no_cors_headers(app: ModuleType) -> None:
    async with (
        served(app, token="s3cret", allowed_origins=[APP_ORIGIN]) as url,
        httpx.AsyncClient() as http,
    ):
        evil = "https://evil.example"
        preflight = await http.options(url, headers={**PREFLIGHT, "Origin": evil})
        posted = await http.post(
            url,
            content=json.dumps(INITIALIZE),
            headers={**ACCEPT, "Origin": evil, "Authorization": "Bearer s3cret"},
        )
    for answer in (preflight, posted):
        assert answer.status_code == 403
        assert not any(key.startswith("access-control-") for key in answer.headers)


async def test_an_allowed_origin_reads_answers_and_refusals(app: ModuleType) -> None:
    async with (
        served(app, token="s3cret", allowed_origins=[APP_ORIGIN]) as url,
        httpx.AsyncClient() as http,
    ):
        body = json.dumps(INITIALIZE)
        headers = {**ACCEPT, "Origin": APP_ORIGIN}
        refused = await http.post(url, content=body, headers=headers)
        opened = await http.post(
            url, content=body, headers={**headers, "Authorization": "Bearer s3cret"}
        )
        plain = await http.post(
            url, content=body, headers={**ACCEPT, "Authorization": "Bearer s3cret"}
        )
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == APP_ORIGIN
    assert "www-authenticate" in refused.headers["access-control-expose-headers"]
    assert opened.status_code == 200
    assert opened.headers["access-control-allow-origin"] == APP_ORIGIN
    assert "mcp-session-id" in opened.headers["access-control-expose-headers"]
    assert "mcp-session-id" in opened.headers
    assert "access-control-allow-origin" not in plain.headers


async def test_the_server_itself_is_no_cross_origin(app: ModuleType) -> None:
    async with served(app, allowed_origins=[APP_ORIGIN]) as url:
        itself = url.removesuffix("/mcp")
        async with httpx.AsyncClient() as http:
            same = await http.post(
                url, content=json.dumps(INITIALIZE), headers={**ACCEPT, "Origin": itself}
            )
            preflight = await http.options(url, headers={**PREFLIGHT, "Origin": itself})
    assert same.status_code == 200
    assert "access-control-allow-origin" not in same.headers
    assert "access-control-allow-origin" not in preflight.headers
