"""A page on another loopback origin, allowed by `--allow-origin`, reaches `/mcp` and the
answering page's routes from a real headless Chromium; a page on an origin not allowed cannot."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import async_playwright
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from support.serve_http import http_server
from support.servers import serving

pytestmark = pytest.mark.anyio

CALLS = """async ([mcp, terminal]) => {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: "Bearer s3cret",
  };
  const initialize = {
    jsonrpc: "2.0", id: 1, method: "initialize",
    params: {
      protocolVersion: "2025-06-18", capabilities: {}, clientInfo: {name: "page", version: "0"},
    },
  };
  try {
    const opened = await fetch(mcp, {method: "POST", headers, body: JSON.stringify(initialize)});
    const session = opened.headers.get("mcp-session-id");
    await opened.text();
    const listed = await fetch(mcp, {
      method: "POST",
      headers: {...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"},
      body: JSON.stringify({jsonrpc: "2.0", id: 2, method: "tools/list"}),
    });
    const tools = await listed.text();
    const refused = await fetch(mcp, {
      method: "POST", body: "{}", headers: {"content-type": "application/json"},
    });
    const stream = new AbortController();
    const forms = await fetch(terminal, {
      headers: {"x-orkestrel-token": "s3cret", accept: "text/event-stream"}, signal: stream.signal,
    });
    stream.abort();
    return {
      opened: opened.status, session: Boolean(session), listed: listed.status, tools,
      refused: refused.status, challenge: refused.headers.get("www-authenticate"),
      forms: forms.status,
    };
  } catch (error) {
    return {error: String(error)};
  }
}"""


async def page_home(request: Any) -> HTMLResponse:
    return HTMLResponse("<!doctype html><title>elsewhere</title><p>elsewhere</p>")


async def test_an_allowed_page_reaches_mcp_and_the_answering_routes(chromium: str) -> None:
    page_app = Starlette(routes=[Route("/", page_home)])
    async with serving(page_app) as allowed, serving(page_app) as foreign:
        argv = ("--ask", "--token", "s3cret", "--allow-origin", allowed)
        async with http_server(*argv) as (mcp, _), async_playwright() as playwright:
            terminal = mcp.removesuffix("/mcp") + "/terminals/user"
            browser = await playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox"]
            )
            try:
                page = await browser.new_page()
                await page.goto(allowed + "/")
                reached = await page.evaluate(CALLS, [mcp, terminal])
                await page.goto(foreign + "/")
                blocked = await page.evaluate(CALLS, [mcp, terminal])
            finally:
                await browser.close()
    assert reached.get("error") is None, reached
    assert reached["opened"] == reached["listed"] == reached["forms"] == 200
    assert reached["session"] is True
    assert '"name":"infer"' in reached["tools"].replace(" ", "")
    assert reached["refused"] == 401
    assert reached["challenge"].startswith("Bearer")
    assert blocked == {"error": "TypeError: Failed to fetch"}
