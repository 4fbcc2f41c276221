"""`create_terminal_routes`, the answering page's routes, and the Starlette app that holds both."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, Unpack

from orkestrel.terminal import TerminalManagerInterface, TimerHandler, default_timer
from orkestrel.toolbox.server.constants import (
    APP_FILES,
    TERMINAL_KEEPALIVE_MS,
    TERMINAL_PAGE_FILES,
    TERMINAL_ROUTES_PATH,
    TERMINAL_STREAM_BUFFER,
)
from orkestrel.toolbox.server.helpers import (
    check_buffer,
    check_keepalive,
    frame_headers,
    resolve_body_limit,
    starlette_path,
)
from orkestrel.toolbox.server.types import (
    TerminalRoute,
    TerminalRouteContext,
    TerminalRoutesOptions,
    TerminalToken,
)

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route


def create_terminal_routes(
    manager: TerminalManagerInterface,
    *,
    path: str = TERMINAL_ROUTES_PATH,
    token: TerminalToken | None = None,
    keepalive: int = TERMINAL_KEEPALIVE_MS,
    timer: TimerHandler = default_timer,
    limit: float | None = None,
    buffer: int = TERMINAL_STREAM_BUFFER,
) -> tuple[TerminalRoute, ...]:
    """Builds the GET SSE stream and POST answer routes that bridge a terminal manager onto the
    wire: exactly two records, GET then POST, sharing `path`.

    The handlers take a Starlette `Request` and answer a Starlette `Response`, so the routes
    need Starlette (it comes with the `mcp` extra). `limit` caps the POST body in bytes (`None`
    or a non-finite number: `TERMINAL_BODY_LIMIT`); `keepalive` is in milliseconds; `buffer`
    caps the bytes a stream holds for a consumer that has not read them (a slower one is
    dropped).
    """
    # Deferred: the handlers need Starlette, an optional dependency.
    from orkestrel.toolbox.server.handlers import answer_handler, stream_handler

    interval = check_keepalive(keepalive)
    cap = resolve_body_limit(limit)
    held = check_buffer(buffer)
    return (
        TerminalRoute(
            "GET",
            path,
            stream_handler(manager, token=token, keepalive=interval, timer=timer, buffer=held),
        ),
        TerminalRoute("POST", path, answer_handler(manager, token=token, limit=cap)),
    )


def create_terminal_page_routes(
    *, path: str = TERMINAL_ROUTES_PATH, frame_ancestors: Sequence[str] = ()
) -> tuple[TerminalRoute, ...]:
    """Builds the GET routes of the answering page under `<path>/`: the page itself, its
    script and its style sheet, plain files shipped in the package. The page needs no token to
    load; it sends the token it is given with every call it makes.

    The page refuses to be framed (`X-Frame-Options: DENY`, CSP `frame-ancestors 'none'`), so
    a page elsewhere cannot overlay it and trick a click into an answer; `frame_ancestors`
    lists the CSP sources that may frame it instead (an MCP App's host, say)."""
    framing = frame_headers(list(frame_ancestors))
    routes = []
    for name, media in TERMINAL_PAGE_FILES.items():
        body = (
            resources.files("orkestrel.toolbox.server")
            .joinpath("page", name or "index.html")
            .read_bytes()
        )
        routes.append(TerminalRoute("GET", f"{path}/{name}", _static(body, media, framing)))
    return tuple(routes)


def create_ask_app_html() -> str:
    """Builds the ask form as an MCP App: one self-contained HTML document (a host renders it
    in a sandboxed iframe, where relative files cannot load) holding the answering page's
    style sheet and form renderer and the app's host bridge, inline.

    Its Content-Security-Policy allows exactly those inline blocks, by hash, and nothing else:
    no other script or style, no network (`default-src 'none'`), no form posts, no `<base>`."""
    style, form, app = (_page_file(name) for name in APP_FILES)
    for name, text in zip(APP_FILES, (style, form, app), strict=True):
        if re.search(r"</(script|style)", text, re.IGNORECASE):
            raise ValueError(f"page/{name} would end its inline block early")
    policy = (
        f"default-src 'none'; script-src {_digest(form)} {_digest(app)}; "
        f"style-src {_digest(style)}; form-action 'none'; base-uri 'none'"
    )
    parts = {"policy": policy, "style": style, "form": form, "app": app}
    return re.sub(r"\{(policy|style|form|app)\}", lambda m: parts[m[1]], _page_file("app.html"))


def _page_file(name: str) -> str:
    return resources.files("orkestrel.toolbox.server").joinpath("page", name).read_text("utf-8")


def _digest(text: str) -> str:
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


def _static(body: bytes, media: str, framing: dict[str, str]) -> Any:
    async def handle(request: Request, context: TerminalRouteContext) -> Response:
        # Deferred: Starlette is an optional dependency (with the `mcp` or `terminal` extra).
        from starlette.responses import Response

        headers = {"cache-control": "no-cache", "x-content-type-options": "nosniff", **framing}
        return Response(body, media_type=media, headers=headers)

    return handle


def starlette_routes(routes: Iterable[TerminalRoute]) -> list[Route]:
    """Turns terminal route records into Starlette `Route`s (`:name` becomes `{name}`), ready
    for a Starlette or FastAPI app's routes."""
    # Deferred: Starlette is an optional dependency (with the `mcp` or `terminal` extra).
    from starlette.routing import Route

    made: list[Route] = []
    for route in routes:

        async def endpoint(request: Request, route: TerminalRoute = route) -> Response:
            return await route.handler(request, {"params": dict(request.path_params)})

        made.append(Route(starlette_path(route.path), endpoint, methods=[route.method]))
    return made


def create_terminal_app(
    manager: TerminalManagerInterface,
    *,
    page: bool = False,
    frame_ancestors: Sequence[str] = (),
    **options: Unpack[TerminalRoutesOptions],
) -> Starlette:
    """Builds a Starlette app serving the terminal routes of `manager` (and, with `page`, the
    answering page at `<path>/`, framed only by `frame_ancestors`); other paths answer `404`
    and other methods `405`."""
    # Deferred: Starlette is an optional dependency (with the `mcp` or `terminal` extra).
    from starlette.applications import Starlette

    routes = create_terminal_routes(manager, **options)
    if page:
        path = options.get("path", TERMINAL_ROUTES_PATH)
        routes += create_terminal_page_routes(path=path, frame_ancestors=frame_ancestors)
    return Starlette(routes=starlette_routes(routes))
