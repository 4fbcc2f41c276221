"""The answering page of `orkestrel serve --ask` against hostile pages and browsers: a page on
another loopback origin framing it, and a browser that blocks `sessionStorage`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from support.serve_http import http_server
from support.servers import serving

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def answering_page(*argv: str) -> AsyncIterator[str]:
    """Runs `orkestrel serve --transport http --ask ARGV...`; yields the answering page's URL."""
    async with http_server("--ask", *argv) as (_, err):
        yield err.getvalue().split("answer forms at ", 1)[1].split()[0]


def framer(target: str) -> Starlette:
    """A page on another origin that frames `target`, as a clickjacker would (invisibly)."""

    async def index(request: Request) -> HTMLResponse:
        return HTMLResponse(f'<iframe id="victim" src="{target}" style="opacity:0.01"></iframe>')

    return Starlette(routes=[Route("/", index)])


async def framed_status(chromium: str, outer: str) -> str | None:
    """Loads `outer` and answers the framed page's status line, or `None` when the frame did
    not render the page."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.goto(outer, wait_until="load")
            frame = await (await page.wait_for_selector("#victim")).content_frame()
            assert frame is not None
            await frame.wait_for_load_state("load")
            status = frame.locator("#status")
            if await status.count() == 0:
                return None
            await frame.wait_for_function(
                "document.getElementById('status').textContent.startsWith('Connected')"
            )
            return await status.inner_text()
        finally:
            await browser.close()


async def test_a_page_on_another_loopback_origin_cannot_frame_the_answering_page(
    chromium: str,
) -> None:
    async with answering_page() as target, serving(framer(target)) as outer:
        assert urlsplit(outer).port != urlsplit(target).port
        assert await framed_status(chromium, outer) is None


async def test_a_listed_frame_ancestor_may_frame_the_answering_page(chromium: str) -> None:
    # Another port of loopback, as an MCP App host on this machine would be.
    async with (
        answering_page("--ask-frame-ancestor", "http://127.0.0.1:*") as target,
        serving(framer(target)) as outer,
    ):
        status = await framed_status(chromium, outer)
    assert status is not None
    assert status.startswith("Connected")


async def test_the_page_connects_when_session_storage_is_blocked(chromium: str) -> None:
    from playwright.async_api import async_playwright

    blocked: Any = """
        Object.defineProperty(window, "sessionStorage", {
          get() { throw new DOMException("storage is blocked", "SecurityError"); },
        });
    """
    async with answering_page() as target, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            await page.add_init_script(blocked)
            await page.goto(target + "#token=anything")
            await page.wait_for_selector("text=Connected", timeout=10_000)
        finally:
            await browser.close()
