"""The HTTP connection guard under uvicorn: a deadline on a request's headers and a cap on open
connections, which uvicorn lacks (its keep-alive timer only runs between requests, and its
`limit_concurrency` still accepts every connection and reads its headers before it answers
503), so a client that opens many connections and never finishes their headers (slowloris)
would hold them, and the process's file descriptors, for ever."""

from __future__ import annotations

import asyncio
import resource
from typing import Any, cast

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

LISTEN_BACKLOG = 128
"""The listening socket's backlog: asyncio accepts up to this many connections in one go,
before any of them can be turned away."""

RESERVED_FILES = LISTEN_BACKLOG + 128
"""File descriptors kept free of HTTP connections: one accept batch, and room for everything
else the server opens (databases, the workspace, its own pipes), so a full connection cap never
starves them."""


def connection_cap(wanted: int) -> int:
    """The connection cap actually enforced: `wanted`, or fewer when the process's open-file
    limit leaves less room than `wanted` plus `RESERVED_FILES` (at least 1)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - RESERVED_FILES))


class GuardedConfig(uvicorn.Config):
    """A uvicorn `Config` whose connections are `GuardedProtocol`s: each request's headers
    must arrive within `header_timeout` seconds of its first byte (or of the connection, or of
    the previous response), the connection is closed otherwise, and at most `max_connections`
    are open at once."""

    def __init__(
        self,
        app: Any,
        *,
        header_timeout: float,
        keepalive_timeout: float,
        max_connections: int,
        **options: Any,
    ) -> None:
        super().__init__(
            app,
            http=GuardedProtocol,
            # uvicorn's own 2048 would also let asyncio accept that many in one go.
            backlog=LISTEN_BACKLOG,
            # uvicorn types it as whole seconds but only hands it to `call_later`.
            timeout_keep_alive=cast(int, keepalive_timeout),
            **options,
        )
        self.header_timeout = header_timeout
        self.max_connections = connection_cap(max_connections)


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 connection, closed when a request's headers take longer than the
    config's `header_timeout`. Past `max_connections`, a new connection evicts the open one
    that has waited longest for its headers (an idle keep-alive connection counts as waiting),
    or, when every open connection is busy with a request, is closed at once."""

    def __init__(self, config: GuardedConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        self.header_timeout = config.header_timeout
        self.max_connections = config.max_connections
        self.header_deadline: asyncio.TimerHandle | None = None
        self.waiting_since = self.loop.time()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.waiting_since = self.loop.time()
        self._arm()
        if len(self.connections) > self.max_connections:
            self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.waiting():
            self._arm()
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        self.waiting_since = self.loop.time()
        super().on_response_complete()

    def waiting(self) -> bool:
        """Whether the connection is between requests or inside a request's headers."""
        return self.conn.their_state is h11.IDLE and not self.transport.is_closing()

    def _arm(self) -> None:
        if self.header_deadline is None and not self.transport.is_closing():
            self.header_deadline = self.loop.call_later(self.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self.header_deadline is not None:
            self.header_deadline.cancel()
            self.header_deadline = None

    def _expired(self) -> None:
        self.header_deadline = None
        if self.waiting():
            self.transport.close()

    def _make_room(self) -> None:
        waiting = [
            other
            for other in self.connections
            if other is not self and isinstance(other, GuardedProtocol) and other.waiting()
        ]
        victim = min(waiting, key=lambda other: other.waiting_since, default=self)
        victim.transport.close()
