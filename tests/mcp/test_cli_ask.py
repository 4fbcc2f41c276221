"""`orkestrel serve --ask`: the prompt tool answered through MCP elicitation (accept, decline,
cancel) over stdio and HTTP, in both protocol eras where the installed SDK line speaks them, or
on the answering page served beside `/mcp` behind the server's guard."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from orkestrel.cli.serve import run_serve
from orkestrel.mcp.elicitation import form_to_elicitation
from support.mcp_client import MAJOR, Session, connect, stdio, text
from support.polling import until
from support.serve_http import http_server
from support.serve_http import parse_serve as parse

pytestmark = pytest.mark.anyio

SCHEMA: Any = {
    "label": "Deploy",
    "help": "Pick the rollout.",
    "fields": [
        {
            "control": "text",
            "name": "owner",
            "label": "Owner",
            "rule": {"required": True, "email": True},
        },
        {
            "control": "number",
            "name": "replicas",
            "rule": {"integer": True, "minimum": 1, "maximum": 9},
        },
        {"control": "confirm", "name": "now", "label": "Deploy now?"},
        {
            "control": "select",
            "name": "region",
            "choices": [{"value": "eu", "label": "Europe"}, {"value": "us", "label": "America"}],
        },
        {"control": "date", "name": "day"},
        {"control": "text", "name": "ticket", "locked": True, "default": "T-1"},
    ],
}
CHECKBOX: Any = {
    "fields": [{"control": "checkbox", "name": "extras", "choices": [{"value": "a", "label": "A"}]}]
}
GOOD = {"owner": "ada@example.com", "replicas": 3, "now": True, "region": "eu", "day": "2025-01-31"}

Connect = Callable[..., AbstractAsyncContextManager[Session]]

ASK = [sys.executable, "-m", "orkestrel", "serve", "--ask", "--tools", "infer"]


class Person:
    """An MCP client's elicitation callback answering from a script, recording the wire params
    it saw."""

    def __init__(self, *replies: dict[str, Any]) -> None:
        self.replies = list(replies)
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(params)
        return self.replies.pop(0)


def accept(content: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": content}


DECLINE = {"action": "decline"}
CANCEL = {"action": "cancel"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# The 2.x client speaks the 2026 era (elicitation as `InputRequiredResult` and a retried call)
# unless told `legacy`; the 1.x client speaks only the earlier one (`elicitation/create` sent
# to the client while the call runs).
WIRES = ["stdio", "http"] + (["stdio-legacy", "http-legacy"] if MAJOR >= 2 else [])


@pytest.fixture(params=WIRES)
def served(request: pytest.FixtureRequest) -> Connect:
    """Serves `orkestrel serve --ask` and connects the SDK's client, with its callback."""
    wire, _, era = str(request.param).partition("-")
    mode = era or None

    @asynccontextmanager
    async def open_client(callback: Any = None, *argv: str) -> AsyncIterator[Session]:
        if wire == "stdio":
            async with connect(
                stdio(ASK[0], [*ASK[1:], *argv]), mode=mode, elicitation=callback
            ) as client:
                yield client
            return
        async with (
            http_server("--ask", *argv) as (url, _),
            connect(url, mode=mode, elicitation=callback) as client,
        ):
            yield client

    return open_client


async def test_the_client_accepts_declines_and_cancels(served: Connect) -> None:
    person = Person(accept(GOOD), DECLINE, CANCEL)
    async with served(person) as client:
        assert "ask" in [tool["name"] for tool in await client.list_tools()]
        accepted = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
        declined = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
        cancelled = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert accepted.get("isError", False) is False
    assert json.loads(text(accepted)) == {**GOOD, "ticket": "T-1"}
    assert (declined.get("isError"), text(declined)) == (True, "'user' declined the form")
    assert cancelled.get("isError") is True
    # Over HTTP the answer goes on to name the answering page, where the person can still answer.
    assert text(cancelled).startswith("form to 'user' expired before it was answered")
    assert len(person.seen) == 3
    asked = person.seen[0]
    assert asked.get("mode", "form") == "form"
    assert asked["message"] == "Deploy\n\nPick the rollout."
    assert asked["requestedSchema"] == form_to_elicitation(SCHEMA)


async def test_a_rejected_elicited_answer_is_asked_again_with_the_faults(served: Connect) -> None:
    person = Person(accept({**GOOD, "owner": "not an email", "replicas": "3"}), accept(GOOD))
    async with served(person) as client:
        result = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert json.loads(text(result)) == {**GOOD, "ticket": "T-1"}
    assert len(person.seen) == 2
    assert "Please correct: owner: The answer is not an email address" in person.seen[1]["message"]


async def test_answers_that_keep_breaking_the_rules_end_as_answer(served: Connect) -> None:
    wrong = accept({**GOOD, "owner": "nope"})
    person = Person(wrong, wrong, wrong)
    async with served(person) as client:
        result = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert (result.get("isError"), text(result)) == (True, "'user' declined the form")
    assert len(person.seen) == 3


async def test_over_stdio_a_form_elicitation_cannot_express_is_a_clear_tool_error() -> None:
    parameters = stdio(ASK[0], ASK[1:])
    async with connect(parameters, elicitation=Person()) as client:
        result = await client.call_tool("ask", {"to": "user", "schema": CHECKBOX})
    assert result.get("isError") is True
    assert text(result) == (
        "asking 'user' failed: cannot reach the person at 'user': field 'extras' is a checkbox "
        "field, and no answering page is served"
    )
    async with connect(parameters) as client:
        plain = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert text(plain).endswith(
        "the MCP client does not support elicitation, and no answering page is served"
    )


async def test_over_http_the_page_answers_what_elicitation_cannot() -> None:
    async with http_server("--ask") as (url, err):
        root = url.removesuffix("/mcp")
        async with (
            connect(url, elicitation=Person()) as client,
            httpx.AsyncClient(base_url=root) as web,
        ):
            page = await web.get("/terminals/user/")
            assert page.status_code == 200
            assert f"answer forms at {root}/terminals/user/" in err.getvalue()
            result: dict[str, Any] = {}

            async def ask() -> None:
                result["value"] = await client.call_tool("ask", {"to": "user", "schema": CHECKBOX})

            async with anyio.create_task_group() as group:
                group.start_soon(ask)
                async with web.stream("GET", "/terminals/user") as stream:
                    async for line in stream.aiter_lines():
                        if line.startswith("data: "):
                            id = json.loads(line[6:])["id"]
                            break
                posted = await web.post(
                    "/terminals/user", json={"id": id, "values": {"extras": ["a"]}}
                )
                assert posted.status_code == 200
            assert json.loads(text(result["value"])) == {"extras": ["a"]}
            assert (
                await web.get("/terminals/user", headers={"host": "evil.example"})
            ).status_code == 421
            assert (await client.call_tool("infer", {"samples": [1]})).get("isError") is False


async def answer_status(web: httpx.AsyncClient, headers: dict[str, str]) -> int:
    """The status of an answer POST for a form that does not exist (422 once past the guard)."""
    posted = await web.post("/terminals/user", json={"id": "x", "values": {}}, headers=headers)
    return posted.status_code


async def test_an_ask_token_guards_the_terminal_routes_but_not_the_page_files() -> None:
    async with http_server("--ask", "--ask-token", "s3cret") as (url, _):
        root = url.removesuffix("/mcp")
        async with httpx.AsyncClient(base_url=root) as web:
            assert await answer_status(web, {}) == 401
            assert await answer_status(web, {"x-orkestrel-token": "wrong"}) == 401
            assert await answer_status(web, {"x-orkestrel-token": "s3cret"}) == 422
            streamed = await web.get("/terminals/user")
            assert streamed.status_code == 401
            for name in ("", "page.js", "page.css"):
                page = await web.get(f"/terminals/user/{name}")
                assert page.status_code == 200, name
            assert (
                await web.get("/terminals/user/", headers={"host": "evil.example"})
            ).status_code == 421
            foreign = {"x-orkestrel-token": "s3cret", "origin": "https://evil.example"}
            assert await answer_status(web, foreign) == 403
    err = io.StringIO()
    status = await run_serve(parse("--transport", "http", "--host", "0.0.0.0", "--ask"), stderr=err)
    assert status == 2
    assert "without a token" in err.getvalue()
    bad = io.StringIO()
    assert await run_serve(parse("--ask", "--ask-timeout", "0"), stderr=bad) == 2
    assert "--ask-timeout" in bad.getvalue()


async def test_the_page_takes_the_bearer_token_which_the_ask_token_does_not_replace() -> None:
    async with http_server("--ask", "--token", "bearer", "--ask-token", "page") as (url, _):
        root = url.removesuffix("/mcp")
        async with httpx.AsyncClient(base_url=root) as web:
            assert (await web.get("/terminals/user/")).status_code == 200
            assert await answer_status(web, {"x-orkestrel-token": "page"}) == 422
            assert await answer_status(web, {"x-orkestrel-token": "bearer"}) == 422
            assert await answer_status(web, {"authorization": "Bearer bearer"}) == 422
            assert await answer_status(web, {"authorization": "Bearer page"}) == 401
            assert await answer_status(web, {}) == 401
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            for headers in ({"x-orkestrel-token": "bearer"}, {"authorization": "Bearer page"}):
                assert (await web.post("/mcp", json=ping, headers=headers)).status_code == 401
        async with connect(url, headers={"Authorization": "Bearer bearer"}) as client:
            assert "ask" in [tool["name"] for tool in await client.list_tools()]
    async with http_server("--ask", "--token", "bearer") as (url, _):
        root = url.removesuffix("/mcp")
        async with httpx.AsyncClient(base_url=root) as web:
            assert await answer_status(web, {"x-orkestrel-token": "bearer"}) == 422
            assert await answer_status(web, {"x-orkestrel-token": "other"}) == 401
            assert (await web.get("/terminals/user/page.js")).status_code == 200


def test_the_mapping_to_the_restricted_elicitation_schema() -> None:
    assert form_to_elicitation(SCHEMA) == {
        "type": "object",
        "properties": {
            "owner": {"title": "Owner", "type": "string", "format": "email"},
            "replicas": {"title": "replicas", "type": "integer", "minimum": 1, "maximum": 9},
            "now": {"title": "Deploy now?", "type": "boolean"},
            "region": {
                "title": "region",
                "type": "string",
                "oneOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "America"}],
            },
            "day": {"title": "day", "type": "string", "format": "date"},
        },
        "required": ["owner"],
    }
    for control in ("password", "checkbox", "file"):
        field: dict[str, Any] = {"control": control, "name": "x"}
        if control == "checkbox":
            field["choices"] = [{"value": "a", "label": "A"}]
        assert form_to_elicitation({"fields": [field]}) is None  # type: ignore[list-item, typeddict-item]
    temporal = form_to_elicitation(
        {
            "fields": [
                {"control": "time", "name": "t", "help": "start"},
                {"control": "color", "name": "c", "default": "#000000"},
            ]
        }  # type: ignore[list-item]
    )
    assert temporal is not None
    assert temporal["properties"]["t"] == {
        "title": "t",
        "type": "string",
        "description": "start; a time of day, HH:MM or HH:MM:SS",
    }
    assert temporal["properties"]["c"]["default"] == "#000000"


async def test_stopping_the_server_ends_an_open_page_stream_with_shutdown() -> None:
    err = io.StringIO()
    options = parse("--transport", "http", "--port", "0", "--tools", "infer", "--ask")
    frames = bytearray()
    opened, ended = anyio.Event(), anyio.Event()
    server = anyio.CancelScope()

    async def serve() -> None:
        with server:
            await run_serve(options, stderr=err)

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        await until(lambda: "answer forms at " in err.getvalue(), 60)
        root = err.getvalue().split("listening on ", 1)[1].split()[0].removesuffix("/mcp")
        async with httpx.AsyncClient(base_url=root) as web:

            async def read() -> None:
                with contextlib.suppress(httpx.HTTPError):
                    async with web.stream("GET", "/terminals/user") as stream:
                        opened.set()
                        async for chunk in stream.aiter_raw():
                            frames.extend(chunk)
                ended.set()

            group.start_soon(read)
            with anyio.fail_after(10):
                await opened.wait()
            server.cancel()
            with anyio.fail_after(20):
                await ended.wait()
    assert frames.endswith(b"event: shutdown\ndata: \n\n")


async def test_over_http_a_client_that_cannot_elicit_is_told_the_page_at_once() -> None:
    heard: list[str | None] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        heard.append(message)

    async with http_server("--ask", "--ask-timeout", "1") as (url, _):
        page = url.removesuffix("/mcp") + "/terminals/user/"
        async with connect(url) as client:
            expired = await client.call_tool(
                "ask", {"to": "user", "schema": SCHEMA}, progress=on_progress
            )
            logged = [
                n["params"] for n in client.notifications if n["method"] == "notifications/message"
            ]
    told = f"the person at 'user' answers this form on the page {page} (within 1 s)"
    assert heard == [told]
    assert [(entry["level"], entry["data"]) for entry in logged] == [("notice", told)]
    assert expired.get("isError") is True
    assert text(expired) == (
        f"form to 'user' expired before it was answered; the person answers on the page {page}"
    )
