"""Cross-origin access for the pages an operator allows (`--allow-origin`): preflights are
answered before any token check, and the `Access-Control-*` headers go only to those origins."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from starlette.types import Message, Send

CORS_METHODS = "GET, POST, DELETE, OPTIONS"
"""The methods an allowed page may use: the MCP endpoint's, and the answering page's."""

CORS_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "last-event-id",
    "mcp-protocol-version",
    "mcp-session-id",
)
"""The request headers an allowed page may send to the MCP endpoint."""

CORS_EXPOSED = "mcp-session-id, mcp-protocol-version, www-authenticate"
"""The response headers an allowed page's script may read."""

CORS_MAX_AGE_SECONDS = 600
"""How long a browser may reuse a preflight's answer."""


def is_preflight(method: str, headers: Mapping[str, bytes]) -> bool:
    """Whether a request is a browser's CORS preflight (an `OPTIONS` naming the method to come)."""
    return method == "OPTIONS" and "access-control-request-method" in headers


def preflight_headers(origin: bytes, allowed: Iterable[str]) -> list[tuple[bytes, bytes]]:
    """The answer's headers to a preflight from the allowed `origin`, letting it send the MCP
    headers and the `allowed` extra ones (a route's own token header)."""
    names = ", ".join(dict.fromkeys([*CORS_HEADERS, *(name.lower() for name in allowed)]))
    return [
        *_origin_headers(origin),
        (b"access-control-allow-methods", CORS_METHODS.encode()),
        (b"access-control-allow-headers", names.encode("latin-1")),
        (b"access-control-max-age", str(CORS_MAX_AGE_SECONDS).encode()),
        (b"content-length", b"0"),
    ]


def cors_send(send: Send, origin: bytes) -> Send:
    """`send` with the CORS headers for the allowed `origin` added to the response's start."""

    async def sent(message: Message) -> None:
        if message["type"] == "http.response.start":
            kept = [
                (key, value)
                for key, value in message.get("headers", [])
                if not key.lower().startswith(b"access-control-")
            ]
            message = {**message, "headers": [*kept, *_origin_headers(origin)]}
        await send(message)

    return sent


def _origin_headers(origin: bytes) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-origin", origin),
        (b"access-control-expose-headers", CORS_EXPOSED.encode()),
        (b"vary", b"Origin"),
    ]
