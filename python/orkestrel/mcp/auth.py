"""The resource server's side of MCP authorization: where its metadata is (RFC 9728), the
`WWW-Authenticate` challenges that point to it, and the scope a JSON-RPC request needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route
from starlette.types import Scope

from orkestrel.mcp.constants import PROTECTED_RESOURCE_PATH
from orkestrel.mcp.jwt_verifier import Grant, JwtAuth


def base_url(scope: Scope, headers: Mapping[str, bytes]) -> str:
    """The scheme and authority a request reached this server at (the guard has checked the
    `Host` header already)."""
    host = headers.get("host", b"").decode("latin-1")
    return f"{scope.get('scheme', 'http')}://{host}"


def bearer_challenge(base: str, path: str, *, error: str, scope: str | None = None) -> bytes:
    """A `WWW-Authenticate` value naming the protected resource metadata (RFC 9728 section 5.1)."""
    parts = [f'error="{error}"']
    if scope is not None:
        parts.append(f'scope="{scope}"')
    parts.append(f'resource_metadata="{base}{PROTECTED_RESOURCE_PATH}{path}"')
    return ("Bearer " + ", ".join(parts)).encode("latin-1")


def metadata_routes(auth: JwtAuth, path: str) -> list[BaseRoute]:
    """The protected resource metadata routes: at the well-known path with the MCP path after
    it (what a client derives from a challenge-less 401), and at the bare well-known path."""

    async def metadata(request: Request) -> JSONResponse:
        base = f"{request.url.scheme}://{request.headers.get('host', '')}"
        body = {
            "resource": auth.resource or base + path,
            "authorization_servers": list(auth.authorization_servers or (auth.issuer,)),
            "scopes_supported": [auth.read_scope, auth.write_scope],
            "bearer_methods_supported": ["header"],
            "resource_signing_alg_values_supported": list(auth.algorithms),
        }
        return JSONResponse(body)

    return [
        Route(PROTECTED_RESOURCE_PATH + path, metadata, methods=["GET"]),
        Route(PROTECTED_RESOURCE_PATH, metadata, methods=["GET"]),
    ]


def needs_write(message: Any, grant: Grant, auth: JwtAuth, readonly: Callable[[str], bool]) -> bool:
    """Whether a JSON-RPC message (or batch) calls a tool that is not read-only with a grant
    that lacks the write scope."""
    if auth.write_scope in grant.scopes:
        return False
    messages = message if isinstance(message, list) else [message]
    for item in messages:
        if not isinstance(item, Mapping) or item.get("method") != "tools/call":
            continue
        params = item.get("params")
        name = params.get("name") if isinstance(params, Mapping) else None
        if not isinstance(name, str) or not readonly(name):
            return True
    return False
