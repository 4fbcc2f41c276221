"""The terminal routes over real HTTP on loopback: uvicorn on a free port and an httpx client."""

from __future__ import annotations

import contextlib
import json
import math
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import pytest

from orkestrel.form import FormError, create_form
from orkestrel.terminal import (
    HEADER_TOKEN,
    SSEParser,
    TerminalManager,
    WireEvent,
    create_terminal_manager,
)
from orkestrel.toolbox import (
    TERMINAL_BODY_LIMIT,
    TERMINAL_KEEPALIVE_MS,
    TERMINAL_ROUTES_PATH,
    create_terminal_app,
    create_terminal_routes,
)
from support.polling import until
from support.servers import serving
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio

TOKEN = {HEADER_TOKEN: "secret"}
JSON = {"content-type": "application/json"}
SCHEMA: Any = {
    "label": "Review",
    "fields": [
        {"control": "confirm", "name": "approved", "rule": {"required": True}},
        {"control": "text", "name": "notes"},
    ],
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Stream:
    """One open event stream, read event by event."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.parser = SSEParser()
        self.raw = bytearray()
        self._chunks = response.aiter_raw()
        self._queue: list[WireEvent] = []

    async def next(self, timeout: float = 10) -> WireEvent:
        with anyio.fail_after(timeout):
            while not self._queue:
                chunk = await self._chunks.__anext__()
                self.raw.extend(chunk)
                self._queue.extend(self.parser.feed(chunk))
        return self._queue.pop(0)

    async def comments(self, count: int, timeout: float = 10) -> None:
        with anyio.fail_after(timeout):
            while self.raw.count(b": \n\n") < count:
                chunk = await self._chunks.__anext__()
                self.raw.extend(chunk)
                self._queue.extend(self.parser.feed(chunk))

    async def ended(self, timeout: float = 10) -> bool:
        with anyio.fail_after(timeout):
            try:
                while True:
                    chunk = await self._chunks.__anext__()
                    self.raw.extend(chunk)
                    self._queue.extend(self.parser.feed(chunk))
            except StopAsyncIteration:
                return True


@asynccontextmanager
async def site(manager: TerminalManager, **options: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = create_terminal_app(manager, **options)
    async with serving(app) as url, httpx.AsyncClient(base_url=url, timeout=30) as client:
        yield client


@asynccontextmanager
async def stream(
    client: httpx.AsyncClient, name: str, headers: dict[str, str] | None = None
) -> AsyncIterator[Stream]:
    async with client.stream(
        "GET", f"/terminals/{name}", headers=TOKEN if headers is None else headers
    ) as response:
        yield Stream(response)


def test_two_records_get_then_post_on_one_path() -> None:
    manager = create_terminal_manager()
    routes = create_terminal_routes(manager, token="secret")
    assert [(route.method, route.path) for route in routes] == [
        ("GET", "/terminals/:name"),
        ("POST", "/terminals/:name"),
    ]
    assert TERMINAL_ROUTES_PATH == "/terminals/:name"
    assert TERMINAL_KEEPALIVE_MS == 15_000
    assert [route.path for route in create_terminal_routes(manager, path="/t/:name")] == [
        "/t/:name"
    ] * 2
    for bad in [0, -1, 1.5, True, 2**31]:
        with pytest.raises(ValueError, match="keepalive"):
            create_terminal_routes(manager, keepalive=bad)
    for bad_limit in [True, "10"]:
        with pytest.raises(TypeError):
            create_terminal_routes(manager, limit=bad_limit)  # type: ignore[arg-type]


async def test_get_replays_then_forwards_live_events_for_its_terminal_only() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    manager.add("other")
    first = manager.ask("agent", "assistant", create_form(SCHEMA))
    async with site(manager, token="secret") as client, stream(client, "assistant") as events:
        assert events.response.status_code == 200
        assert events.response.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert events.response.headers["cache-control"] == "no-cache"
        assert events.response.headers["x-accel-buffering"] == "no"
        replayed = await events.next()
        [record] = manager.pending("assistant")
        assert replayed == {
            "event": "pending",
            "data": json.dumps(record, separators=(",", ":"), ensure_ascii=False),
            "id": record["id"],
        }
        manager.ask("agent", "other", create_form(SCHEMA))
        second = manager.ask("agent", "assistant", create_form(SCHEMA))
        live = await events.next()
        assert live["event"] == "pending"
        assert json.loads(live["data"])["to"] == "assistant"
        manager.terminal("other").stop()  # type: ignore[union-attr]
        manager.terminal("assistant").stop(live["id"])  # type: ignore[union-attr]
        assert await events.next() == {
            "event": "expire",
            "data": json.dumps({"id": live["id"]}, separators=(",", ":")),
        }
        with pytest.raises(FormError):
            await second
        answered = await client.post(
            "/terminals/assistant",
            json={"id": record["id"], "values": {"approved": True}},
            headers=TOKEN,
        )
        assert answered.status_code == 200
        assert answered.headers["content-type"] == "application/json"
        assert answered.content == b'{"success":true,"value":{"approved":true}}'
    assert await first == {"approved": True}


async def test_tokens_unknown_terminals_and_the_page() -> None:
    manager = create_terminal_manager()
    manager.add("assistant")
    async with site(manager, token="secret", page=True) as client:
        for headers in [{}, {HEADER_TOKEN: "wrong"}, {HEADER_TOKEN: ""}]:
            assert (await client.get("/terminals/assistant", headers=headers)).status_code == 401
            refused = await client.post(
                "/terminals/assistant", json={"id": "x", "values": {}}, headers=headers
            )
            assert (refused.status_code, refused.content) == (401, b"")
        assert (await client.get("/terminals/nobody", headers=TOKEN)).status_code == 404
        missing = await client.post(
            "/terminals/nobody", json={"id": "x", "values": {}}, headers=TOKEN
        )
        assert (missing.status_code, missing.content) == (404, b"")
        assert (await client.get("/elsewhere", headers=TOKEN)).status_code == 404
        assert (await client.put("/terminals/assistant", headers=TOKEN)).status_code == 405
        page = await client.get("/terminals/assistant/")
        assert page.status_code == 200
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        assert b'src="page.js"' in page.content
        script = await client.get("/terminals/assistant/page.js")
        assert script.headers["content-type"] == "text/javascript; charset=utf-8"
        assert b"x-orkestrel-token" in script.content
        assert (await client.get("/terminals/assistant/page.css")).status_code == 200


async def test_the_page_refuses_framing_unless_ancestors_are_listed() -> None:
    manager = create_terminal_manager()
    async with site(manager, page=True) as client:
        page = await client.get("/terminals/assistant/")
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
    async with site(manager, page=True, frame_ancestors=["https://host.example"]) as client:
        page = await client.get("/terminals/assistant/")
        assert "x-frame-options" not in page.headers
        assert page.headers["content-security-policy"] == "frame-ancestors https://host.example"
    for bad in ["", "https://a.example; script-src *", "a b", "https://a,b"]:
        with pytest.raises(ValueError, match="a frame ancestor is one CSP source"):
            create_terminal_app(manager, page=True, frame_ancestors=[bad])


@pytest.mark.parametrize("buffer", [0, -1, True, 1.5])
def test_a_stream_buffer_that_is_not_a_positive_integer_is_refused(buffer: Any) -> None:
    with pytest.raises(ValueError, match="buffer must be a positive integer of bytes"):
        create_terminal_routes(create_terminal_manager(), buffer=buffer)


async def test_keepalive_rechecks_a_token_validator_on_every_tick() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("assistant")
    allowed = {"secret": True}
    baseline = manager.emitter.count()
    async with (
        site(
            manager, token=lambda value: allowed.get(value or "", False), timer=timer, keepalive=50
        ) as client,
        stream(client, "assistant") as events,
    ):
        await until(lambda: len(timer.live) == 1)
        assert timer.live[0].ms == 50
        timer.fire()
        await events.comments(1)
        assert len(timer.live) == 1
        allowed["secret"] = False
        timer.fire()
        assert await events.ended()
        assert timer.live == []
        assert manager.emitter.count() == baseline


async def test_a_static_token_survives_ticks_and_a_raising_validator_fails_closed() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("assistant")
    async with (
        site(manager, token="secret", timer=timer) as client,
        stream(client, "assistant") as events,
    ):
        for count in range(1, 4):
            await until(lambda: len(timer.live) == 1)
            timer.fire()
            await events.comments(count)

    def explode(value: str | None) -> bool:
        raise RuntimeError("validator broke")

    async with site(manager, token=explode) as client:
        assert (await client.get("/terminals/assistant", headers=TOKEN)).status_code == 401


async def test_a_worker_thread_ask_reaches_an_open_stream() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    async with site(manager) as client, stream(client, "assistant", {}) as events:
        await until(lambda: manager.emitter.count() >= 3)
        await anyio.to_thread.run_sync(
            lambda: manager.ask("agent", "assistant", create_form(SCHEMA))
        )
        assert (await events.next())["event"] == "pending"


async def test_destroying_the_manager_ends_every_stream_with_shutdown() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    async with site(manager) as client, stream(client, "assistant", {}) as events:
        await until(lambda: manager.emitter.count() >= 3)
        manager.destroy()
        assert await events.next() == {"event": "shutdown", "data": ""}
        assert await events.ended()


async def test_post_statuses_and_bodies() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager(timer=timer)
    manager.add("assistant")
    answer = manager.ask("agent", "assistant", create_form(SCHEMA))
    [record] = manager.pending("assistant")
    id = record["id"]
    async with site(manager, token="secret") as client:

        async def post(body: bytes | str) -> httpx.Response:
            content = body.encode() if isinstance(body, str) else body
            return await client.post(
                "/terminals/assistant", content=content, headers={**TOKEN, **JSON}
            )

        for bad_json in [b"", b"{", b"not json", b"\xff\xfe", b"[" * 100_000]:
            response = await post(bad_json)
            assert (response.status_code, response.content) == (400, b""), bad_json[:10]
        for wrong_shape in [
            "[]",
            "1",
            '"x"',
            "{}",
            '{"id": 1, "values": {}}',
            '{"id": "", "values": {}}',
            f'{{"id": "{id}"}}',
            f'{{"id": "{id}", "values": []}}',
            f'{{"id": "{id}", "values": {{"a": null}}}}',
            f'{{"id": "{id}", "values": {{"a": {{"b": 1}}}}}}',
        ]:
            response = await post(wrong_shape)
            assert (response.status_code, response.content) == (422, b""), wrong_shape
        rejected = await post(json.dumps({"id": id, "values": {"notes": "x"}}))
        assert rejected.status_code == 422
        assert rejected.json() == {
            "success": False,
            "error": {
                "reason": "rejected",
                "errors": [
                    {"field": "approved", "message": "An answer is needed here", "rule": "required"}
                ],
            },
        }
        unknown = await post(json.dumps({"id": "nope", "values": {}}))
        assert (unknown.status_code, unknown.json()) == (
            422,
            {"success": False, "error": {"reason": "unknown"}},
        )
        assert manager.pending("assistant")
        accepted = await post(json.dumps({"id": id, "values": {"approved": True}}))
        assert accepted.status_code == 200
        assert accepted.json() == {"success": True, "value": {"approved": True, "notes": "x"}}
        expired = await post(json.dumps({"id": id, "values": {"approved": True}}))
        assert (expired.status_code, expired.json()["error"]) == (422, {"reason": "unknown"})
    assert await answer == {"approved": True, "notes": "x"}


async def test_a_target_outcome_is_a_404_with_the_result() -> None:
    class Vanishing(TerminalManager):
        def answer(self, to: str, id: str, values: object) -> Any:
            self.remove(to)
            return super().answer(to, id, values)

    manager = Vanishing()
    manager.add("assistant")
    async with site(manager) as client:
        response = await client.post("/terminals/assistant", json={"id": "x", "values": {}})
    assert (response.status_code, response.json()) == (
        404,
        {"success": False, "error": {"reason": "target"}},
    )


async def test_a_body_not_sent_as_json_is_refused_before_it_is_read() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    manager.ask("agent", "assistant", create_form(SCHEMA))
    [record] = manager.pending("assistant")
    body = json.dumps({"id": record["id"], "values": {"approved": True}})
    async with site(manager) as client:
        for media in [
            None,
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
        ]:
            headers = {} if media is None else {"content-type": media}
            response = await client.post("/terminals/assistant", content=body, headers=headers)
            assert response.status_code == 415, media
        assert manager.pending("assistant")
        typed = {"content-type": "application/json; charset=utf-8"}
        assert (
            await client.post("/terminals/assistant", content=body, headers=typed)
        ).status_code == 200


async def test_the_body_limit() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    manager.ask("agent", "assistant", create_form(SCHEMA))
    [record] = manager.pending("assistant")
    body = json.dumps({"id": record["id"], "values": {"approved": True}}).encode()
    async with site(manager, limit=len(body)) as client:
        assert (
            await client.post("/terminals/assistant", content=body + b" ", headers=JSON)
        ).status_code == 413
        assert (
            await client.post("/terminals/assistant", content=body, headers=JSON)
        ).status_code == 200
    async with site(manager, limit=0) as client:
        assert (
            await client.post("/terminals/assistant", content=b"{}", headers=JSON)
        ).status_code == 413
        assert (
            await client.post("/terminals/assistant", content=b"", headers=JSON)
        ).status_code == 400
    for limit in [None, math.inf, math.nan, -math.inf]:
        async with site(manager, limit=limit) as client:
            big = b" " * TERMINAL_BODY_LIMIT + b"{}"
            assert (
                await client.post("/terminals/assistant", content=big, headers=JSON)
            ).status_code == 413
            exact = b" " * (TERMINAL_BODY_LIMIT - 2) + b"{}"
            assert (
                await client.post("/terminals/assistant", content=exact, headers=JSON)
            ).status_code == 422
    async with site(manager, limit=-5) as client:
        assert (
            await client.post("/terminals/assistant", content=b"{}", headers=JSON)
        ).status_code == 413
    async with site(manager, limit=2.9) as client:
        assert (
            await client.post("/terminals/assistant", content=b"{}", headers=JSON)
        ).status_code == 422


async def test_a_hundred_megabyte_streamed_body_is_refused_after_the_cap() -> None:
    manager = create_terminal_manager()
    manager.add("assistant")
    called: list[Any] = []
    real = manager.answer
    manager.answer = lambda *args: called.append(args) or real(*args)  # type: ignore[method-assign]
    async with site(manager) as client:
        base = client.base_url
        stream = await anyio.connect_tcp(str(base.host), int(base.port))  # type: ignore[arg-type]
        head = (
            b"POST /terminals/assistant HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"x" * 65536
        framed = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        sent = 0
        answer = b""
        answered = anyio.Event()

        async def read() -> None:
            nonlocal answer
            with contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                while b"\r\n" not in answer:
                    answer += await stream.receive()
            answered.set()

        async def write() -> None:
            nonlocal sent
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                await stream.send(head)
                while sent < 100 * 1024 * 1024 and not answered.is_set():
                    await stream.send(framed)
                    sent += len(chunk)

        async with stream:
            with anyio.fail_after(60):
                async with anyio.create_task_group() as group:
                    group.start_soon(read)
                    group.start_soon(write)
    assert answer.startswith(b"HTTP/1.1 413")
    assert sent < 100 * 1024 * 1024
    assert called == []


async def test_a_lying_content_length_over_http_never_reaches_the_manager() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    manager.ask("agent", "assistant", create_form(SCHEMA))
    [record] = manager.pending("assistant")
    called: list[Any] = []
    real = manager.answer
    manager.answer = lambda *args: called.append(args) or real(*args)  # type: ignore[method-assign]
    body = (
        json.dumps({"id": record["id"], "values": {"approved": True}}).encode() + b" " * 2_000_000
    )
    async with site(manager) as client:
        base = client.base_url
        stream = await anyio.connect_tcp(str(base.host), int(base.port))  # type: ignore[arg-type]
        async with stream:
            head = (
                b"POST /terminals/assistant HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\n"
            )
            with contextlib.suppress(anyio.BrokenResourceError, OSError):
                await stream.send(head + b"Content-Length: 10\r\n\r\n" + body)
            answer = b""
            with (
                anyio.fail_after(30),
                contextlib.suppress(anyio.EndOfStream, anyio.BrokenResourceError),
            ):
                while b"\r\n" not in answer:
                    answer += await stream.receive()
    assert answer.startswith(b"HTTP/1.1 400")
    assert called == []
    assert manager.pending("assistant") == [record]


async def test_fifty_connect_and_abort_cycles_leave_no_timer_and_no_listener() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("assistant")
    baseline = manager.emitter.count()
    async with site(manager, timer=timer) as client:
        for _ in range(50):
            async with stream(client, "assistant", {}):
                await until(lambda: len(timer.live) == 1)
            await until(lambda: not timer.live and manager.emitter.count() == baseline)
        assert len(timer.armed) == 50
        async with stream(client, "assistant", {}) as events:
            await until(lambda: manager.emitter.count() == baseline + 3)
            manager.ask("agent", "assistant", create_form(SCHEMA))
            manager.ask("agent", "assistant", create_form(SCHEMA))
            first, second = await events.next(), await events.next()
            assert first["id"] != second["id"]
            assert events.raw.count(b"event: pending") == 2


async def test_mounted_in_a_plain_starlette_app_and_in_fastapi() -> None:
    from fastapi import FastAPI
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from orkestrel.toolbox import starlette_routes

    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")

    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("ok")

    plain = Starlette(
        routes=[Route("/health", health), *starlette_routes(create_terminal_routes(manager))]
    )
    api = FastAPI()
    api.router.routes.extend(
        starlette_routes(create_terminal_routes(manager, path="/api/terminals/:name"))
    )

    @api.get("/health")
    async def api_health() -> dict[str, str]:
        return {"status": "ok"}

    for app, prefix in [(plain, "/terminals"), (api, "/api/terminals")]:
        answer = manager.ask("agent", "assistant", create_form(SCHEMA))
        async with serving(app) as url, httpx.AsyncClient(base_url=url) as client:
            assert (await client.get("/health")).status_code == 200
            async with client.stream("GET", f"{prefix}/assistant") as response:
                event = await Stream(response).next()
            id = json.loads(event["data"])["id"]
            posted = await client.post(
                f"{prefix}/assistant", json={"id": id, "values": {"approved": True}}
            )
            assert posted.status_code == 200
        assert await answer == {"approved": True}


def test_the_page_is_plain_files_in_the_package() -> None:
    from importlib import resources

    page = resources.files("orkestrel.toolbox.server").joinpath("page")
    names = sorted(item.name for item in page.iterdir() if not item.name.startswith("__"))
    assert names == ["app.html", "app.js", "form.js", "index.html", "page.css", "page.js"]
    assert socket.gethostname()
