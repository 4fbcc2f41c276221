"""The token gate and the option checks of the terminal routes."""

from __future__ import annotations

import hmac
import math
import re
from collections.abc import Sequence

from orkestrel.timeout import MAX_TIMEOUT_MS
from orkestrel.toolbox.server.constants import TERMINAL_BODY_LIMIT
from orkestrel.toolbox.server.types import TerminalToken


def token_accepts(token: TerminalToken | None, presented: str | None) -> bool:
    """Determines whether the header value `presented` passes the gate: always without a token,
    by constant-time equality for a string, by the validator's verdict for a function (a
    validator that raises refuses)."""
    if token is None:
        return True
    if isinstance(token, str):
        return presented is not None and hmac.compare_digest(
            token.encode("utf-8", "surrogatepass"), presented.encode("utf-8", "surrogatepass")
        )
    try:
        return token(presented) is True
    except Exception:
        return False


def resolve_body_limit(limit: object) -> int:
    """Resolves the POST body cap: `None` or a non-finite number gives `TERMINAL_BODY_LIMIT`,
    any other number `max(0, floor(limit))`; a `bool` or a non-number raises `TypeError`."""
    if isinstance(limit, bool) or not (limit is None or isinstance(limit, int | float)):
        raise TypeError(f"limit must be a number of bytes or None, got {limit!r}")
    if limit is None or not math.isfinite(limit):
        return TERMINAL_BODY_LIMIT
    return max(0, math.floor(limit))


def check_keepalive(keepalive: object) -> int:
    """Returns a valid keepalive interval, or raises `ValueError`: an `int` from 1 to
    `MAX_TIMEOUT_MS` milliseconds."""
    if isinstance(keepalive, bool) or not isinstance(keepalive, int):
        raise ValueError(f"keepalive must be an integer of milliseconds, got {keepalive!r}")
    if not 1 <= keepalive <= MAX_TIMEOUT_MS:
        raise ValueError(f"keepalive must be from 1 to {MAX_TIMEOUT_MS} ms, got {keepalive}")
    return keepalive


def frame_headers(ancestors: Sequence[str]) -> dict[str, str]:
    """The headers that say who may frame the answering page: nobody for no `ancestors`
    (`X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`), else CSP `frame-ancestors`
    listing them. Raises `ValueError` for a source that is empty or holds whitespace, `;` or
    `,`, which would end or split the directive."""
    for source in ancestors:
        if not isinstance(source, str) or not source or re.search(r"[\s;,]", source):
            raise ValueError(
                f"a frame ancestor is one CSP source, e.g. https://app.example, got {source!r}"
            )
    if not ancestors:
        return {"x-frame-options": "DENY", "content-security-policy": "frame-ancestors 'none'"}
    return {"content-security-policy": "frame-ancestors " + " ".join(ancestors)}


def check_buffer(buffer: object) -> int:
    """Returns a valid stream buffer cap, or raises `ValueError`: an `int` of at least 1 byte."""
    if isinstance(buffer, bool) or not isinstance(buffer, int) or buffer < 1:
        raise ValueError(f"buffer must be a positive integer of bytes, got {buffer!r}")
    return buffer


def starlette_path(path: str) -> str:
    """Turns a `:name`-templated path into Starlette's `{name}` form."""
    return "/".join(
        "{" + part[1:] + "}" if part.startswith(":") and len(part) > 1 else part
        for part in path.split("/")
    )
