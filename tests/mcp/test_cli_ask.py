"""`orkestrel serve --ask`: the prompt tool answered through MCP elicitation (accept, decline,
cancel) over stdio and HTTP, or on the answering page served beside `/mcp`."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from orkestrel.cli.serve import register, run_serve
from orkestrel.mcp.elicitation import form_to_elicitation
from support.polling import until

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

Connect = Callable[..., AbstractAsyncContextManager[Client]]


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


class Person:
    """An MCP client's elicitation callback answering from a script, recording what it saw."""

    def __init__(self, *replies: types.ElicitResult) -> None:
        self.replies = list(replies)
        self.seen: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.seen.append(params)
        return self.replies.pop(0)


def accept(content: dict[str, Any]) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content=content)


@asynccontextmanager
async def http_server(*argv: str) -> AsyncIterator[tuple[str, io.StringIO]]:
    err = io.StringIO()
    options = parse(
        "--transport", "http", "--port", "0", "--tools", "infer", "--root", "/nonexistent", *argv
    )
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))
        await until(
            lambda: "answer forms at " in err.getvalue() or "orkestrel serve:" in err.getvalue(), 60
        )
        assert "orkestrel serve:" not in err.getvalue(), err.getvalue()
        url = err.getvalue().split("listening on ", 1)[1].split()[0]
        try:
            yield url, err
        finally:
            group.cancel_scope.cancel()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["stdio", "http", "http-legacy"])
def connect(request: pytest.FixtureRequest) -> Connect:
    """Serves `orkestrel serve --ask` and connects the SDK's client, with its callback."""
    mode = str(request.param)

    @asynccontextmanager
    async def open_client(callback: Any = None, *argv: str) -> AsyncIterator[Client]:
        if mode == "stdio":
            parameters = StdioServerParameters(
                command=sys.executable,
                args=["-m", "orkestrel", "serve", "--ask", "--tools", "infer", *argv],
                env=dict(os.environ),
            )
            async with Client(parameters, elicitation_callback=callback) as client:
                yield client
            return
        async with http_server("--ask", *argv) as (url, _):
            legacy = {"mode": "legacy"} if mode == "http-legacy" else {}
            async with Client(url, elicitation_callback=callback, **legacy) as client:
                yield client

    return open_client  # type: ignore[return-value]


def text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_the_client_accepts_declines_and_cancels(connect: Connect) -> None:
    person = Person(
        accept(GOOD), types.ElicitResult(action="decline"), types.ElicitResult(action="cancel")
    )
    async with connect(person) as client:
        assert "ask" in [tool.name for tool in (await client.list_tools()).tools]
        accepted = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
        declined = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
        cancelled = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert accepted.is_error is False
    assert json.loads(text(accepted)) == {**GOOD, "ticket": "T-1"}
    assert (declined.is_error, text(declined)) == (True, "'user' declined the form")
    assert (cancelled.is_error, text(cancelled)) == (
        True,
        "form to 'user' expired before it was answered",
    )
    assert len(person.seen) == 3
    asked = person.seen[0]
    assert isinstance(asked, types.ElicitRequestFormParams)
    assert asked.message == "Deploy\n\nPick the rollout."
    assert asked.requested_schema == form_to_elicitation(SCHEMA)


async def test_a_rejected_elicited_answer_is_asked_again_with_the_faults(connect: Connect) -> None:
    person = Person(accept({**GOOD, "owner": "not an email", "replicas": "3"}), accept(GOOD))
    async with connect(person) as client:
        result = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert json.loads(text(result)) == {**GOOD, "ticket": "T-1"}
    assert len(person.seen) == 2
    assert "Please correct: owner: The answer is not an email address" in person.seen[1].message


async def test_answers_that_keep_breaking_the_rules_end_as_answer(connect: Connect) -> None:
    wrong = accept({**GOOD, "owner": "nope"})
    person = Person(wrong, wrong, wrong)
    async with connect(person) as client:
        result = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert (result.is_error, text(result)) == (True, "'user' declined the form")
    assert len(person.seen) == 3


async def test_over_stdio_a_form_elicitation_cannot_express_is_a_clear_tool_error() -> None:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "orkestrel", "serve", "--ask", "--tools", "infer"],
        env=dict(os.environ),
    )
    async with Client(parameters, elicitation_callback=Person()) as client:
        result = await client.call_tool("ask", {"to": "user", "schema": CHECKBOX})
    assert result.is_error is True
    assert text(result) == (
        "asking 'user' failed: cannot reach the person at 'user': field 'extras' is a checkbox "
        "field, and no answering page is served"
    )
    async with Client(parameters) as client:
        plain = await client.call_tool("ask", {"to": "user", "schema": SCHEMA})
    assert text(plain).endswith(
        "the MCP client does not support elicitation, and no answering page is served"
    )


async def test_over_http_the_page_answers_what_elicitation_cannot() -> None:
    async with http_server("--ask") as (url, err):
        root = url.removesuffix("/mcp")
        async with (
            Client(url, elicitation_callback=Person()) as client,
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
            assert (await client.call_tool("infer", {"samples": [1]})).is_error is False


async def test_a_token_guards_the_routes_and_is_required_off_loopback() -> None:
    async with http_server("--ask", "--ask-token", "s3cret") as (url, _):
        root = url.removesuffix("/mcp")
        async with httpx.AsyncClient(base_url=root) as web:
            assert (
                await web.post("/terminals/user", json={"id": "x", "values": {}})
            ).status_code == 401
            allowed = await web.post(
                "/terminals/user",
                json={"id": "x", "values": {}},
                headers={"x-orkestrel-token": "s3cret"},
            )
            assert allowed.status_code == 422
            assert (await web.get("/terminals/user/")).status_code == 200
    err = io.StringIO()
    status = await run_serve(parse("--transport", "http", "--host", "0.0.0.0", "--ask"), stderr=err)
    assert status == 2
    assert "set --ask-token" in err.getvalue()
    bad = io.StringIO()
    assert await run_serve(parse("--ask", "--ask-timeout", "0"), stderr=bad) == 2
    assert "--ask-timeout" in bad.getvalue()


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
