"""`principal`: who a request acts for, the key that tasks, asked forms and HTTP sessions are
kept under."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any


def principal(context: Any) -> str:
    """Who a request acts for, as far as this server can tell: a JWT's subject, else the bearer
    credentials it sent, else the local client (stdio, or loopback HTTP without a token)."""
    request = getattr(context, "request", None)
    scope = getattr(request, "scope", None)
    if not isinstance(scope, Mapping):
        return "local"
    headers = getattr(request, "headers", None)
    authorization = headers.get("authorization") if headers is not None else None
    return _acting(scope.get("orkestrel.grant"), authorization)


def scope_principal(scope: Mapping[str, Any]) -> str:
    """`principal` of an HTTP request's ASGI scope, before any handler sees it."""
    authorization = next(
        (value for key, value in scope.get("headers", ()) if key.lower() == b"authorization"),
        None,
    )
    text = None if authorization is None else authorization.decode("latin-1")
    return _acting(scope.get("orkestrel.grant"), text)


def owner_digest(principal: str) -> str:
    """What a stored row keeps of its principal: a digest, never the credential itself."""
    return hashlib.sha256(principal.encode("utf-8", "surrogatepass")).hexdigest()


def _acting(grant: Any, authorization: str | None) -> str:
    if grant is not None:
        return f"jwt:{getattr(grant, 'subject', None) or ''}"
    parts = (authorization or "").split(None, 1)
    if not parts:
        return "local"
    # The scheme's case is free ("Bearer", "bearer"): the credentials are what identify.
    return f"bearer:{parts[-1].strip()}"
