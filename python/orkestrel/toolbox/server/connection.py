"""`TerminalConnection`: one open SSE stream of one terminal, and everything it holds."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from orkestrel.abort import AbortSignal
from orkestrel.abort.loop import loop_caller
from orkestrel.terminal import (
    KEEPALIVE_FRAME,
    PendingForm,
    TerminalManagerInterface,
    TimerCancel,
    TimerHandler,
    encode_event,
    serialize_expire,
    serialize_pending,
    serialize_shutdown,
)
from orkestrel.toolbox.server.constants import TERMINAL_STREAM_BUFFER
from orkestrel.toolbox.server.helpers import token_accepts
from orkestrel.toolbox.server.types import TerminalToken


class TerminalConnection:
    """Represents one open event stream of terminal `name`: it replays the parked forms,
    forwards the terminal's `pending` and `expire` events, sends a keepalive comment every
    `keepalive` ms while the token still accepts the header presented at connect, and ends on
    the manager's `destroy` with a `shutdown` event.

    The replay is read form by form as the consumer takes it, and the live frames waiting for
    the consumer are held up to `buffer` bytes (one frame always fits): a consumer that falls
    further behind is dropped, and a page that reconnects gets the replay afresh.

    `close` (also run when `signal` aborts, when a tick finds the token refused, and when a
    write finds the consumer gone) cancels the timer, unsubscribes and ends the stream; it is
    idempotent.
    """

    def __init__(
        self,
        manager: TerminalManagerInterface,
        name: str,
        *,
        token: TerminalToken | None,
        presented: str | None,
        keepalive: int,
        timer: TimerHandler,
        signal: AbortSignal | None = None,
        buffer: int = TERMINAL_STREAM_BUFFER,
    ) -> None:
        self._manager = manager
        self._name = name
        self._token = token
        self._presented = presented
        self._keepalive = keepalive
        self._timer = timer
        self._signal = signal
        self._buffer = buffer
        self._buffered = 0
        self._replay: list[str] = []
        self.dropped = False
        self._send: MemoryObjectSendStream[bytes]
        self._receive: MemoryObjectReceiveStream[bytes]
        self._send, self._receive = anyio.create_memory_object_stream[bytes](math.inf)
        self._opened = False
        self._closed = False
        self._cancel: TimerCancel | None = None
        self._call = loop_caller()
        # Bound once: a fresh bound method per access would never match on removal.
        self._listeners: tuple[tuple[str, Any], ...] = (
            ("pending", self._on_pending),
            ("expire", self._on_expire),
            ("destroy", self._on_destroy),
        )
        self._abort_listener = self._aborted

    @property
    def closed(self) -> bool:
        """Whether the connection has been torn down."""
        return self._closed

    def open(self) -> None:
        """Replays the parked forms and starts forwarding; a second call does nothing, and an
        already aborted signal closes the connection at once."""
        if self._opened or self._closed:
            return
        self._opened = True
        if self._signal is not None:
            if self._signal.aborted:
                self.close()
                return
            self._signal.add_listener(self._abort_listener)
        self._replay = [record["id"] for record in self._manager.pending(self._name)]
        for event, listener in self._listeners:
            self._manager.emitter.on(event, listener)
        self._arm()

    async def frames(self) -> AsyncIterator[bytes]:
        """Yields the stream's bytes, frame by frame, until the connection closes."""
        try:
            while self._replay and not self._closed:
                prompt = self._manager.terminal(self._name)
                record = None if prompt is None else prompt.pending(self._replay.pop(0))
                if record is not None:
                    yield encode_event(serialize_pending(record))
            async for frame in self._receive:
                self._buffered -= len(frame)
                yield frame
        finally:
            self.finish()

    def finish(self) -> None:
        """Closes the connection and drops whatever it had not sent yet: the consumer is gone."""
        self.close()
        self._receive.close()

    def close(self) -> None:
        """Tears the connection down: cancels the keepalive, unsubscribes, ends the stream."""
        if self._closed:
            return
        self._closed = True
        if self._cancel is not None:
            cancel, self._cancel = self._cancel, None
            cancel()
        for event, listener in self._listeners:
            self._manager.emitter.off(event, listener)
        if self._signal is not None:
            self._signal.remove_listener(self._abort_listener)
        self._send.close()

    def _aborted(self) -> None:
        self._call(self.close)

    def _on_pending(self, record: PendingForm) -> None:
        if record.get("to") == self._name:
            frame = encode_event(serialize_pending(record))
            self._call(lambda: self._write(frame))

    def _on_expire(self, to: str, id: str) -> None:
        if to == self._name:
            frame = encode_event(serialize_expire(id))
            self._call(lambda: self._write(frame))

    def _on_destroy(self, *args: Any) -> None:
        def end() -> None:
            self._write(encode_event(serialize_shutdown()))
            self.close()

        self._call(end)

    def _arm(self) -> None:
        self._cancel = self._timer(self._tick, self._keepalive)

    def _tick(self) -> None:
        self._cancel = None
        if self._closed or not token_accepts(self._token, self._presented):
            self.close()
            return
        if self._write(KEEPALIVE_FRAME):
            self._arm()

    def _write(self, frame: bytes) -> bool:
        if self._closed:
            self.close()
            return False
        if self._buffered and self._buffered + len(frame) > self._buffer:
            # The consumer reads too slowly: drop it rather than hold without bound.
            self.dropped = True
            self.close()
            return False
        self._buffered += len(frame)
        try:
            self._send.send_nowait(frame)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            self.close()
            return False
        return True
