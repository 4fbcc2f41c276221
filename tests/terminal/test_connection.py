"""The routes and one stream's connection, driven through ASGI directly, under asyncio and trio."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from orkestrel.abort import AbortController, AbortSignal
from orkestrel.form import create_form
from orkestrel.terminal import (
    HEADER_TOKEN,
    SSEParser,
    TerminalManagerInterface,
    create_terminal_manager,
)
from orkestrel.toolbox import create_terminal_app
from orkestrel.toolbox.server.connection import TerminalConnection
from support.polling import until
from support.timers import FakeTimer

pytestmark = pytest.mark.anyio

SCHEMA: Any = {"fields": [{"control": "confirm", "name": "ok"}]}


def scope(method: str, path: str, headers: dict[str, str]) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
    }


def connect(
    manager: TerminalManagerInterface, timer: FakeTimer, signal: AbortSignal | None = None
) -> TerminalConnection:
    """A connection to the `assistant` terminal with no token, a 10 ms keepalive on `timer`."""
    return TerminalConnection(
        manager, "assistant", token=None, presented=None, keepalive=10, timer=timer, signal=signal
    )


class Exchange:
    """One ASGI request whose body arrives in chunks and whose client may disconnect."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.sent: list[dict[str, Any]] = []
        self.gone = anyio.Event()
        self.body_read = 0

    async def receive(self) -> dict[str, Any]:
        if self.chunks:
            chunk = self.chunks.pop(0)
            self.body_read += len(chunk)
            return {"type": "http.request", "body": chunk, "more_body": bool(self.chunks)}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    @property
    def body(self) -> bytes:
        return b"".join(message.get("body", b"") for message in self.sent[1:])


async def test_a_lying_small_content_length_on_a_big_body_is_still_capped() -> None:
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    called: list[Any] = []
    manager.answer = lambda *args: called.append(args)  # type: ignore[assignment, method-assign, return-value]
    app = create_terminal_app(manager, limit=1024)
    exchange = Exchange([b"x" * 512] * 2000)
    await app(
        scope(
            "POST",
            "/terminals/assistant",
            {"content-length": "10", "content-type": "application/json"},
        ),
        exchange.receive,
        exchange.send,
    )
    assert exchange.status == 413
    assert exchange.body_read <= 1024 + 512
    assert called == []


async def test_the_stream_under_this_backend_through_asgi() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    answer = manager.ask("agent", "assistant", create_form(SCHEMA))
    app = create_terminal_app(manager, token="secret", timer=timer)
    exchange = Exchange([b""])
    baseline = manager.emitter.count()

    async def frames(count: int) -> list[Any]:
        await until(lambda: len(SSEParser().feed(exchange.body)) >= count)
        return SSEParser().feed(exchange.body)

    async with anyio.create_task_group() as group:
        group.start_soon(
            app,
            scope("GET", "/terminals/assistant", {HEADER_TOKEN: "secret"}),
            exchange.receive,
            exchange.send,
        )
        [replayed] = await frames(1)
        assert exchange.status == 200
        record = json.loads(replayed["data"])
        manager.ask("agent", "assistant", create_form(SCHEMA))
        await frames(2)
        timer.fire()
        await until(lambda: b": \n\n" in exchange.body)
        exchange.gone.set()
    assert manager.emitter.count() == baseline
    assert timer.live == []
    assert manager.answer("assistant", record["id"], {"ok": True})["success"] is True
    assert await answer == {"ok": True}


async def test_opening_twice_is_idempotent_and_close_is_complete() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("assistant")
    connection = connect(manager, timer)
    connection.open()
    connection.open()
    assert manager.emitter.count() == 3
    assert len(timer.armed) == 1
    connection.close()
    connection.close()
    assert manager.emitter.count() == 0
    assert timer.live == []
    connection.finish()


async def test_an_already_aborted_signal_tears_down_at_once_and_a_later_abort_does_too() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("assistant")
    controller = AbortController()
    controller.abort()
    connection = connect(manager, timer, controller.signal)
    connection.open()
    assert connection.closed
    assert manager.emitter.count() == 0
    assert timer.armed == []
    frames = [frame async for frame in connection.frames()]
    assert frames == []
    live = AbortController()
    second = connect(manager, timer, live.signal)
    second.open()
    live.abort()
    assert second.closed
    assert manager.emitter.count() == 0
    assert timer.live == []
    second.finish()


async def test_a_consumer_gone_without_an_abort_is_noticed_by_the_next_event_or_tick() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager(timer=FakeTimer())
    manager.add("assistant")
    for trigger in ("event", "tick"):
        connection = connect(manager, timer)
        connection.open()
        connection._receive.close()  # the consumer went away; no signal fired
        assert not connection.closed
        if trigger == "event":
            manager.ask("agent", "assistant", create_form(SCHEMA))
        else:
            timer.fire()
        assert connection.closed
        assert manager.emitter.count() == 0
        assert timer.live == []


async def test_a_validator_that_raises_mid_stream_closes_it() -> None:
    timer = FakeTimer()
    manager = create_terminal_manager()
    manager.add("assistant")
    calls: list[str | None] = []

    def validator(value: str | None) -> bool:
        calls.append(value)
        if len(calls) > 1:
            raise RuntimeError("the key store is down")
        return True

    connection = TerminalConnection(
        manager, "assistant", token=validator, presented="t", keepalive=10, timer=timer
    )
    connection.open()
    timer.fire()
    assert not connection.closed
    timer.fire()
    assert connection.closed
    assert calls == ["t", "t"]
    assert timer.live == []
    connection.finish()
