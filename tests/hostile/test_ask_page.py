"""`orkestrel serve --transport http --ask` against hostile answers and pages: an answer that
holds a lone surrogate, a model that parks too many or too large forms, and pages that never
read their stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from support.mcp_client import Session, connect, text
from support.serve_http import http_server

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
