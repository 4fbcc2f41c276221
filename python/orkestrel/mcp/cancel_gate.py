"""Cancellation of tool calls on the MCP SDK's 1.x line, done by us instead of the SDK.

1.x cancels a request from its receive loop by cancelling the request's scope and then
awaiting the write of a "Request cancelled" answer. Under load that write waits, and the
cancellation it just raised can land on the receive loop itself, which then ends the session
silently: every later request goes unanswered. So on 1.x the `notifications/cancelled` for a
tool call never reaches the SDK. The gate cancels the call's own scope in the handler task,
and the handler answers the cancelled call with the error the 2.x line sends on the 2025 wire
(`-32800`, `Request cancelled`), where 1.x's own answer has code 0.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio

MAX_TRACKED = 4096
"""The most tool-call ids the gate remembers between a call's arrival and its handler's
start, so a client whose calls never start cannot grow it without bound."""

CANCELLED = "Request cancelled"
"""The error message a cancelled call is answered with (the one both SDK lines send)."""

REQUEST_CANCELLED = -32800
"""The JSON-RPC error code a cancelled call is answered with: the 2.x line's on the 2025 wire
(LSP's RequestCancelled), so a client reads one code whichever line serves it."""


class CancelledCall(Exception):
    """Raised in a handler whose call the client cancelled."""


class CancelGate:
    """Tracks one session's tool calls from arrival to settlement, and cancels them when the
    client asks."""

    def __init__(self) -> None:
        self._arrived: OrderedDict[Any, bool] = OrderedDict()
        self._running: dict[Any, anyio.CancelScope] = {}

    def admit(self, message: Any) -> bool:
        """Whether the SDK may see `message` (a `SessionMessage` or an exception): every
        `notifications/cancelled` is kept and acted on here."""
        root = getattr(getattr(message, "message", None), "root", None)
        method = getattr(root, "method", None)
        if method == "tools/call":
            request = getattr(root, "id", None)
            if request is not None:
                self._arrive(request)
            return True
        if method != "notifications/cancelled":
            return True
        params = getattr(root, "params", None)
        request = params.get("requestId") if isinstance(params, dict) else None
        scope = self._running.get(request)
        if scope is not None:
            scope.cancel()
        elif request in self._arrived:
            self._arrived[request] = True
        return False

    @contextmanager
    def call(self, request: Any) -> Iterator[None]:
        """Runs the body as the handler of tool call `request`; raises `CancelledCall` when the
        client cancelled it, before or during the body."""
        if self._arrived.pop(request, False):
            raise CancelledCall(CANCELLED)
        scope = anyio.CancelScope()
        self._running[request] = scope
        try:
            with scope:
                yield
        finally:
            self._running.pop(request, None)
        if scope.cancelled_caught:
            raise CancelledCall(CANCELLED)

    def _arrive(self, request: Any) -> None:
        self._arrived[request] = False
        self._arrived.move_to_end(request)
        while len(self._arrived) > MAX_TRACKED:
            self._arrived.popitem(last=False)


class GatedStream:
    """The SDK's read stream, less what `gate` keeps."""

    def __init__(self, stream: Any, gate: CancelGate) -> None:
        self._stream = stream
        self._gate = gate

    async def receive(self) -> Any:
        while True:
            message = await self._stream.receive()
            if self._gate.admit(message):
                return message

    def __aiter__(self) -> GatedStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> GatedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
