"""The ask form as an MCP App (`io.modelcontextprotocol/ui`) over `orkestrel serve --ask` with
the official client: a client that negotiated Apps sees the view (the ask tool's
`_meta.ui.resourceUri`, the `ui://` resource, the view's own tools); any other client is
served as before, and cannot reach the view's tools or resource."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import pytest

from support.apps import APP_MARKS, APPS, MIME
from support.mcp_client import stdio, wire
from support.serve_http import http_server

pytestmark = APP_MARKS

VIEW = "ui://orkestrel/ask"
ASK = ["-m", "orkestrel", "serve", "--ask", "--tools", "infer"]
FORM: Any = {
    "label": "Deploy",
    "fields": [{"control": "text", "name": "owner", "label": "Owner", "rule": {"required": True}}],
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def client(
    *, apps: bool, mime: str = MIME, url: str | None = None, bearer: str | None = None
) -> AsyncIterator[Any]:
    """The official client on `orkestrel serve --ask` (over stdio, or at `url` sending the
    `bearer` credentials), negotiating MCP Apps (with the media type `mime`) when `apps`."""
    from mcp.client import Client
    from mcp.client.extension import advertise
    from mcp.client.streamable_http import streamable_http_client

    extensions = [advertise(APPS, {"mimeTypes": [mime]})] if apps else None
    async with AsyncExitStack() as stack:
        target: Any = stdio(sys.executable, ASK)
        if url is not None:
            import httpx2

            headers = {"Authorization": f"Bearer {bearer}"}
            http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=30))
            target = streamable_http_client(url, http_client=http)
        yield await stack.enter_async_context(Client(target, extensions=extensions))


async def listing(session: Any) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in wire((await session.list_tools()).tools)}


async def test_a_client_that_negotiated_apps_gets_the_view_linked_listed_and_readable() -> None:
    async with client(apps=True) as session:
        tools = await listing(session)
        resources = wire((await session.list_resources()).resources)
        read = wire(await session.read_resource(VIEW))
        capabilities = wire(session.server_capabilities)
    assert tools["ask"]["_meta"]["ui"] == {"resourceUri": VIEW, "visibility": ["model", "app"]}
    for name in ("ask_forms", "ask_answer"):
        assert tools[name]["_meta"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
    assert "_meta" not in tools["infer"]
    assert [(r["uri"], r["mimeType"]) for r in resources] == [(VIEW, MIME)]
    (content,) = read["contents"]
    assert (content["uri"], content["mimeType"]) == (VIEW, MIME)
    assert content["_meta"]["ui"]["csp"] == {}
    html = content["text"]
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy is not None
    assert policy[1].startswith("default-src 'none'; script-src 'sha256-")
    assert "unsafe-inline" not in policy[1]
    assert APPS in capabilities["extensions"]


@pytest.mark.parametrize("mime", [None, "text/html"])
async def test_a_client_without_apps_is_served_as_before(mime: str | None) -> None:
    # No extension at all, or the extension without the app media type.
    async with client(apps=mime is not None, mime=mime or MIME) as session:
        tools = await listing(session)
        resources = wire((await session.list_resources()).resources)
        forms = wire(await session.call_tool("ask_forms", {}))
        answered = wire(await session.call_tool("ask_answer", {"id": "x", "values": {}}))
        with pytest.raises(Exception, match="not a served resource"):
            await session.read_resource(VIEW)
    assert sorted(tools) == ["ask", "infer"]
    assert "_meta" not in tools["ask"]
    assert resources == []
    assert (forms["isError"], forms["content"][0]["text"]) == (True, "tool not found: ask_forms")
    assert answered["isError"] is True
    assert answered["content"][0]["text"] == "tool not found: ask_answer"


async def test_the_view_lists_and_answers_the_waiting_form_and_the_ask_returns() -> None:
    async with client(apps=True) as person, anyio.create_task_group() as group:
        answers: dict[str, Any] = {}

        async def ask() -> None:
            result = await person.call_tool("ask", {"to": "user", "schema": FORM})
            answers["ask"] = wire(result)

        group.start_soon(ask)
        with anyio.fail_after(30):
            while not (forms := await view(person, "ask_forms", {}))["forms"]:  # noqa: ASYNC110 - server state
                await anyio.sleep(0.05)
        (form,) = forms["forms"]
        assert form["schema"]["label"] == "Deploy"
        for forged in ("x" * 5000, "../" + form["id"], form["id"].upper()):
            refused = await view(person, "ask_answer", {"id": forged, "values": {"owner": "x"}})
            assert refused == {"success": False, "error": {"reason": "unknown"}}
        typed = [
            wire(await person.call_tool("ask_answer", arguments))
            for arguments in ({"id": 42, "values": {}}, {"id": form["id"], "values": [1]})
        ]
        assert [(t["isError"], t["content"][0]["text"]) for t in typed] == [
            (True, "id: expected the string id of a waiting form, got int"),
            (True, "values: expected an object of answers, got list"),
        ]
        rejected = await view(person, "ask_answer", {"id": form["id"], "values": {}})
        assert rejected["success"] is False
        assert rejected["error"]["reason"] == "rejected"
        assert [e["field"] for e in rejected["error"]["errors"]] == ["owner"]
        done = await view(person, "ask_answer", {"id": form["id"], "values": {"owner": "ada"}})
        assert done == {"success": True, "value": {"owner": "ada"}}
    assert answers["ask"].get("isError", False) is False
    assert json.loads(answers["ask"]["content"][0]["text"]) == {"owner": "ada"}


async def view(session: Any, name: str, arguments: dict[str, Any]) -> Any:
    """Calls one of the view's tools as its host would, and gives the JSON it answered."""
    result = wire(await session.call_tool(name, arguments))
    assert result.get("isError", False) is False, result
    return json.loads(result["content"][0]["text"])


async def test_a_form_is_seen_and_answered_only_under_the_credentials_that_asked_it() -> None:
    # Loopback without --token: each client is told apart by the credentials it sends.
    async with (
        http_server("--ask") as (url, _),
        client(apps=True, url=url, bearer="one") as person,
        client(apps=True, url=url, bearer="two") as stranger,
        anyio.create_task_group() as group,
    ):
        answers: dict[str, Any] = {}

        async def ask() -> None:
            answers["ask"] = wire(await person.call_tool("ask", {"to": "user", "schema": FORM}))

        group.start_soon(ask)
        with anyio.fail_after(30):
            while not (forms := await view(person, "ask_forms", {}))["forms"]:  # noqa: ASYNC110 - server state
                await anyio.sleep(0.05)
        (form,) = forms["forms"]
        assert await view(stranger, "ask_forms", {}) == {"forms": []}
        stolen = await view(stranger, "ask_answer", {"id": form["id"], "values": {"owner": "eve"}})
        assert stolen == {"success": False, "error": {"reason": "unknown"}}
        done = await view(person, "ask_answer", {"id": form["id"], "values": {"owner": "ada"}})
        assert done["success"] is True
    assert json.loads(answers["ask"]["content"][0]["text"]) == {"owner": "ada"}
