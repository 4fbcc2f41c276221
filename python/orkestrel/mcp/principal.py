"""`principal`: who a request acts for, the key that tasks and asked forms are kept under."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def principal(context: Any) -> str:
    """Who a request acts for, as far as this server can tell: a JWT's subject, else the bearer
    credentials it sent, else the local client (stdio, or loopback HTTP without a token)."""
    request = getattr(context, "request", None)
    scope = getattr(request, "scope", None)
    if not isinstance(scope, Mapping):
        return "local"
    grant = scope.get("orkestrel.grant")
    if grant is not None:
        return f"jwt:{getattr(grant, 'subject', None) or ''}"
    headers = getattr(request, "headers", None)
    authorization = headers.get("authorization") if headers is not None else None
    if not authorization:
        return "local"
    # The scheme's case is free ("Bearer", "bearer"): the credentials are what identify.
    return f"bearer:{authorization.split(None, 1)[-1].strip()}"
