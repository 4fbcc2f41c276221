"""The structural route records the terminal routes are returned as."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict

from orkestrel.terminal import TimerHandler

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

TerminalRouteMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
"""Represents the HTTP method literal a `TerminalRoute` declares."""

TerminalToken: TypeAlias = str | Callable[[str | None], bool]
"""Represents the `token` gate of the terminal routes: a string compared for equality with the
`x-orkestrel-token` header, or a validator the host controls (given the header or `None`), for
expiry and rotation a fixed string cannot express; absent means no check."""


class TerminalRouteContext(TypedDict):
    """Represents what a terminal route handler reads besides the request: the URL-decoded
    `:name` path parameters a router matched."""

    params: Mapping[str, str]


TerminalHandler: TypeAlias = Callable[["Request", TerminalRouteContext], Awaitable["Response"]]
"""Represents a terminal route handler: a Starlette `Request` and the route context in, a
Starlette `Response` out."""


@dataclass(frozen=True)
class TerminalRoute:
    """Represents one structural route record: a plain `method`, `path` and two-argument
    `handler`, tied to no router's own route type, so any router that accepts such a handler
    can mount it."""

    method: TerminalRouteMethod
    path: str
    handler: TerminalHandler


class TerminalRoutesOptions(TypedDict, total=False):
    """Represents the options `create_terminal_routes` takes: the shared path, the token gate,
    the keepalive interval and its timer, the POST body limit, and the stream buffer cap."""

    path: str
    token: TerminalToken | None
    keepalive: int
    timer: TimerHandler
    limit: float | None
    buffer: int
