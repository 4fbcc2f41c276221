"""The streamable HTTP app: the SDK's session manager at `/mcp`, beside any other Starlette
routes, all behind one guard (bearer token, `Host` and `Origin`)."""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import re
import socket
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from orkestrel.mcp import sdk
from orkestrel.mcp.auth import base_url, bearer_challenge, metadata_routes, needs_write
from orkestrel.mcp.constants import DEFAULT_PATH, LOOPBACK_HOSTS, RESUME_SECONDS
from orkestrel.mcp.cors import cors_send, is_preflight, preflight_headers
from orkestrel.mcp.disconnect import handle_watched, request_id
from orkestrel.mcp.durable_events import DurableEventStore
from orkestrel.mcp.event_store import EventStore
from orkestrel.mcp.jwt_verifier import JwtAuth, JwtVerifier, TokenRefused
from orkestrel.mcp.principal import owner_digest, scope_principal
from orkestrel.mcp.remote_replay import replay_elsewhere
from orkestrel.mcp.resumable_sessions import ResumableSessions, session_key
from orkestrel.mcp.session_events import SessionEvents
from orkestrel.mcp.types import EventStoreInterface

WILDCARD_HOSTS = ("0.0.0.0", "::", "")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

MAX_CHECKED_BODY = 4 * 1024 * 1024
"""Bodies up to this size are checked for JSON before the SDK reads them (its own limit)."""

_SESSION_ID = re.compile(rb"[\x21-\x7e]{1,128}")
"""A session id as the SDK mints them (visible ASCII), the only kind looked up in a store."""

PRIMING_VERSION = "2025-11-25"
"""The first protocol version whose clients are sent event ids (the SDK's priming event)."""


def is_loopback(host: str) -> bool:
    """Tells whether binding `host` serves this machine only."""
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def default_hosts(bind: str) -> list[str]:
    """The `Host` names a server bound to `bind` answers to unless told more: loopback names,
    and for another address that address (for a wildcard, this machine's host names)."""
    hosts: list[str] = list(LOOPBACK_HOSTS)
    if is_loopback(bind):
        return hosts
    if bind in WILDCARD_HOSTS:
        names = dict.fromkeys([socket.gethostname(), socket.getfqdn()])
        hosts.extend(name for name in names if parse_authority(name) is not None)
    else:
        hosts.append(f"[{bind}]" if ":" in bind else bind)
    return hosts


_AUTHORITY = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9._~-]+))(?::(?P<port>[0-9]{1,5}))?"
)
_ORIGIN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<authority>[^/?#@]*)")
_DEFAULT_PORTS = {"http": 80, "https": 443}

Authority = tuple[str, int | None]
"""A `Host` or origin authority as the guard compares it: the lower-cased name (an IPv6
address in brackets, compressed) and the port, `None` when none is given."""


def parse_authority(text: str) -> Authority | None:
    """`(name, port)` of `name`, `name:port`, `[v6]` or `[v6]:port`, or `None` for anything
    else: trailing text after `]`, a port that is not a number up to 65535, user info, a
    path, or an IPv6 literal that is not one."""
    match = _AUTHORITY.fullmatch(text)
    if match is None:
        return None
    port = int(match["port"]) if match["port"] is not None else None
    if port is not None and port > 65535:
        return None
    if match["v6"] is None:
        return match["name"].lower(), port
    try:
        return f"[{ipaddress.IPv6Address(match['v6']).compressed}]", port
    except ValueError:
        return None


def parse_origin(text: str) -> tuple[str, str, int] | None:
    """`(scheme, name, port)` of a web origin `http[s]://authority`, the port filled in from
    the scheme when absent, or `None` for anything else (another scheme, a path, user info,
    `null`)."""
    match = _ORIGIN.fullmatch(text.removesuffix("/"))
    scheme = match["scheme"].lower() if match is not None else ""
    authority = parse_authority(match["authority"]) if match is not None else None
    if authority is None or scheme not in _DEFAULT_PORTS:
        return None
    name, port = authority
    return scheme, name, _DEFAULT_PORTS[scheme] if port is None else port


@dataclass(frozen=True)
class RouteAccess:
    """Represents how requests to some mounted `routes` pass the guard's token check, for
    routes a browser reaches without the bearer header. With no `header`, they need no token
    at all: plain files that hold nothing (a page, its script and style sheet). With a
    `header`, one of `tokens` in that header passes as well as the bearer token does (and when
    the server has no bearer token, a non-empty `tokens` is still required there). The `Host`
    and `Origin` checks apply to these routes as to every other."""

    routes: tuple[BaseRoute, ...]
    header: str | None = None
    tokens: tuple[str, ...] = ()


class Guard:
    """Refuses, before any route runs, a request whose `Host` is not one this server answers to
    (421), whose `Origin` is a foreign web page (403), or that lacks the bearer token when one
    is set (401). `"*"` in `hosts` accepts any `Host` (behind a proxy that checks it).

    `routes` are the app's routes in the router's order and `access` how some of them are
    reached instead of by the bearer token: the route a request goes to is the first of
    `routes` it fully matches, as the router picks it."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        hosts: Sequence[str],
        origins: Sequence[str] = (),
        routes: Sequence[BaseRoute] = (),
        access: Sequence[RouteAccess] = (),
        verifier: JwtVerifier | None = None,
        path: str = DEFAULT_PATH,
    ) -> None:
        self.app = app
        self.verifier = verifier
        self.path = path
        self.token = token.encode() if token else None
        self.any_host = "*" in hosts
        self.hosts = [_known(host) for host in hosts if host != "*"]
        self.origins = {_allowed_origin(origin) for origin in origins}
        self.routes = list(routes)
        self.access: Mapping[int, RouteAccess] = {
            id(route): grant for grant in access for route in grant.routes
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        host = headers.get("host", b"").decode("latin-1")
        if not self._host_ok(host):
            await _refuse(scope, send, 421, f"unknown Host header {host!r}")
            return
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(
            origin.decode("latin-1"), scope.get("scheme", "http"), host
        ):
            await _refuse(scope, send, 403, "cross-origin request refused")
            return
        if origin is not None and scope["type"] == "http" and self._allowed(origin):
            if is_preflight(scope["method"], headers):
                # A browser sends no credentials with a preflight, so it is answered first.
                extra = [grant.header for grant in self.access.values() if grant.header]
                answer = preflight_headers(origin, extra)
                await send({"type": "http.response.start", "status": 204, "headers": answer})
                await send({"type": "http.response.body", "body": b""})
                return
            send = cors_send(send, origin)
        if self.verifier is not None:
            await self._verified(scope, receive, send, headers)
            return
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _refuse(scope, send, 401, refusal, challenge=True)
            return
        await self.app(scope, receive, send)

    async def _verified(
        self, scope: Scope, receive: Receive, send: Send, headers: Mapping[str, bytes]
    ) -> None:
        """Passes a request on with a JWT's grant in `scope["orkestrel.grant"]`, or refuses it
        with 401 (no valid token) or 403 (a token with neither scope)."""
        assert self.verifier is not None
        grant = self._access(scope) if self.access else None
        if grant is not None and (grant.header is None or self._header_ok(grant, headers)):
            await self.app(scope, receive, send)
            return
        base = base_url(scope, headers)
        try:
            granted = await self.verifier.verify(headers.get("authorization"), base + self.path)
        except TokenRefused as refused:
            challenge = bearer_challenge(base, self.path, error="invalid_token")
            await _refuse(scope, send, 401, str(refused), challenge=challenge)
            return
        auth = self.verifier.auth
        if not granted.scopes & {auth.read_scope, auth.write_scope}:
            challenge = bearer_challenge(
                base, self.path, error="insufficient_scope", scope=auth.read_scope
            )
            message = f"the token grants neither {auth.read_scope} nor {auth.write_scope}"
            await _refuse(scope, send, 403, message, challenge=challenge)
            return
        await self.app({**scope, "orkestrel.grant": granted}, receive, send)

    def _header_ok(self, grant: RouteAccess, headers: Mapping[str, bytes]) -> bool:
        given = headers.get((grant.header or "").lower())
        return given is not None and any(
            hmac.compare_digest(given, token.encode()) for token in grant.tokens
        )

    def _refusal(self, scope: Scope, headers: Mapping[str, bytes]) -> str | None:
        """Why the request's credentials do not pass, or `None` when they do."""
        grant = self._access(scope) if self.access else None
        bearer = self.token is not None and self._token_ok(headers.get("authorization"))
        if grant is None:
            return None if self.token is None or bearer else "missing or wrong bearer token"
        if grant.header is None or bearer or (self.token is None and not grant.tokens):
            return None
        if self._header_ok(grant, headers):
            return None
        return f"missing or wrong token (send it in {grant.header} or as a bearer token)"

    def _access(self, scope: Scope) -> RouteAccess | None:
        for route in self.routes:
            match, _ = route.matches(scope)
            if match == Match.FULL:
                return self.access.get(id(route))
        return None

    def _allowed(self, origin: bytes) -> bool:
        """Whether `origin` is one the operator allowed (not merely this server itself)."""
        return parse_origin(origin.decode("latin-1")) in self.origins

    def _host_ok(self, host: str) -> bool:
        if self.any_host:
            return True
        given = parse_authority(host)
        if given is None:
            return False
        name, port = given
        return any(name == known and (want is None or want == port) for known, want in self.hosts)

    def _origin_ok(self, origin: str, scheme: str, host: str) -> bool:
        """Whether `origin` is one of the allowed origins, or this very server as the request
        reached it: the request's scheme, and the `Host` header's name and port (the scheme's
        default port when the header has none)."""
        parsed = parse_origin(origin)
        if parsed is None:
            return False
        if parsed in self.origins:
            return True
        reached = parse_authority(host)
        if reached is None or scheme not in _DEFAULT_PORTS:
            return False
        name, port = reached
        return parsed == (scheme, name, _DEFAULT_PORTS[scheme] if port is None else port)

    def _token_ok(self, header: bytes | None) -> bool:
        assert self.token is not None
        if header is None or header[:7].lower() != b"bearer ":
            return False
        return hmac.compare_digest(header[7:].strip(), self.token)


def _known(host: str) -> Authority:
    known = parse_authority(host)
    if known is None:
        raise ValueError(
            f"an allowed host is a name or address with an optional port, got {host!r}"
        )
    return known


def _allowed_origin(origin: str) -> tuple[str, str, int]:
    allowed = parse_origin(origin)
    if allowed is None:
        raise ValueError(f"an allowed origin is http[s]://host[:port], got {origin!r}")
    return allowed


async def _refuse(
    scope: Scope,
    send: Send,
    status: int,
    message: str,
    *,
    challenge: bool | bytes = False,
    code: int = INVALID_REQUEST,
) -> None:
    if scope["type"] == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if isinstance(challenge, bytes):
        headers.append((b"www-authenticate", challenge))
    elif challenge:
        headers.append((b"www-authenticate", b'Bearer realm="orkestrel"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class _Endpoint:
    """The ASGI endpoint handing every request at the MCP path to the session manager, after
    answering a POST whose body is not JSON at all (or nests past the parser) with a 400 parse
    error, as SDK releases differ there (a 1.x server answers such a body with a 500). A
    session's request is cancelled when its client drops the connection before the answer
    (after `resume` seconds without a reconnection, for a client that was sent event ids). A
    reconnection whose `Last-Event-ID` names no kept event of its session answers 400. A
    session belongs to the principal whose request opened it (see `principal`): a request of
    any other naming it, whatever its method, is answered as one naming an unknown session."""

    def __init__(
        self,
        manager: Any,
        auth: JwtAuth | None = None,
        readonly: Callable[[str], bool] = lambda name: False,
        sessions: ResumableSessions | None = None,
        resume: float = RESUME_SECONDS,
    ) -> None:
        self.manager = manager
        self.auth = auth
        self.readonly = readonly
        self.sessions = sessions
        self.resume = resume

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.manager.handle_request(scope, receive, send)
            return
        owner = owner_digest(scope_principal(scope))
        if self.sessions is None:
            await self._serve(scope, receive, send, owner)
            return
        with self.sessions.opening(owner):
            await self._serve(self._unforeign(scope, owner), receive, send, owner)

    def _unforeign(self, scope: Scope, owner: str) -> Scope:
        """`scope` with each `Mcp-Session-Id` of a session another owner opened replaced by an
        id no session has: the request is answered exactly as one naming an unknown session
        (a session is bound to who opened it, as the MCP security best practices ask), and
        nothing of it reaches that session."""
        assert self.sessions is not None
        sessions = self.sessions

        def foreign(key: bytes, value: bytes) -> bool:
            return key.lower() == b"mcp-session-id" and sessions.foreign(
                value.decode("latin-1"), owner
            )

        if not any(foreign(key, value) for key, value in scope["headers"]):
            return scope
        unknown = uuid.uuid4().hex
        while unknown in sessions:
            unknown = uuid.uuid4().hex
        headers = [
            (key, unknown.encode() if foreign(key, value) else value)
            for key, value in scope["headers"]
        ]
        return {**scope, "headers": headers}

    async def _serve(self, scope: Scope, receive: Receive, send: Send, owner: str) -> None:
        if await self._replayed_elsewhere(scope, receive, send, owner):
            return
        unknown = await self._unknown_event(scope)
        if unknown is not None and scope["method"] == "GET":
            await _refuse(scope, send, 400, unknown)
            return
        if scope["method"] != "POST":
            await self.manager.handle_request(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more and size <= MAX_CHECKED_BODY:
            message = await receive()
            if message["type"] != "http.request":
                await self.manager.handle_request(scope, _replay(chunks, message, receive), send)
                return
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = message.get("more_body", False)
        if not more:
            body = b"".join(chunks)
            reason = _unparseable(body)
            if reason is not None:
                await _refuse(scope, send, 400, reason, code=PARSE_ERROR)
                return
            if await self._short_of_scope(scope, send, json.loads(body)):
                return
            id = request_id(body)
            headers = dict(scope["headers"])
            if id is not None and b"mcp-session-id" in headers:
                replay: list[Any] = [{"type": "http.request", "body": body, "more_body": False}]
                events = self._events(headers)
                resumable = headers.get(b"mcp-protocol-version", b"") >= PRIMING_VERSION.encode()
                watching = events if events is not None and resumable else None
                reconnected = (
                    None
                    if watching is None
                    else functools.partial(watching.reconnected, str(id), self.resume)
                )
                try:
                    await handle_watched(
                        self.manager, scope, replay, receive, send, id, reconnected
                    )
                finally:
                    if watching is not None:
                        watching.release(str(id))
                return
        elif await self._short_of_scope(scope, send, None):
            return
        last = {"type": "http.request", "body": chunks.pop() if chunks else b"", "more_body": more}
        await self.manager.handle_request(scope, _replay(chunks, last, receive), send)

    def _events(self, headers: Mapping[bytes, bytes]) -> SessionEvents | None:
        session = headers.get(b"mcp-session-id")
        if self.sessions is None or session is None:
            return None
        return self.sessions.events(session.decode("latin-1"))

    async def _replayed_elsewhere(
        self, scope: Scope, receive: Receive, send: Send, owner: str
    ) -> bool:
        """Answers a GET reconnection to a session this server does not hold from the durable
        store (another server holds it, or this one before a restart), when the session's
        events are kept under the request's `owner`; tells whether it did."""
        headers = dict(scope["headers"])
        session = headers.get(b"mcp-session-id")
        last = headers.get(b"last-event-id")
        store = None if self.sessions is None else self.sessions.store
        if (
            scope["method"] != "GET"
            or session is None
            or last is None
            or not isinstance(store, DurableEventStore)
            or self._events(headers) is not None
        ):
            return False
        number = SessionEvents.number(last.decode("latin-1"))
        if number is None or _SESSION_ID.fullmatch(session) is None:
            return False
        held = session.decode("latin-1")
        key = session_key(owner, held)
        return await replay_elsewhere(store, key, held, number, receive, send, self.resume)

    async def _unknown_event(self, scope: Scope) -> str | None:
        """Why a reconnection's `Last-Event-ID` cannot be replayed in its open session, or
        `None` when it can (or the request is no such reconnection)."""
        headers = dict(scope["headers"])
        last = headers.get(b"last-event-id")
        events = self._events(headers)
        if last is None or events is None or await events.knows(last.decode("latin-1")):
            return None
        return (
            f"Last-Event-ID {last.decode('latin-1')[:64]!r} names no event this session kept "
            "(unknown, another session's, or past the kept events' bounds); call again instead"
        )

    async def _short_of_scope(self, scope: Scope, send: Send, message: Any) -> bool:
        """Refuses with 403 a tool call (or a body too large to check) that needs the write
        scope the request's token lacks; tells whether it did."""
        grant = scope.get("orkestrel.grant")
        if self.auth is None or grant is None or self.auth.write_scope in grant.scopes:
            return False
        if message is not None and not needs_write(message, grant, self.auth, self.readonly):
            return False
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        path = scope.get("path", DEFAULT_PATH)
        challenge = bearer_challenge(
            base_url(scope, headers), path, error="insufficient_scope", scope=self.auth.write_scope
        )
        text = f"this tool call needs the {self.auth.write_scope} scope, which the token lacks"
        await _refuse(scope, send, 403, text, challenge=challenge)
        return True


def _unparseable(body: bytes) -> str | None:
    try:
        json.loads(body)
    except RecursionError:
        return "parse error: the message nests deeper than the parser allows"
    except ValueError as error:
        return f"parse error: {error}"
    return None


def _replay(chunks: list[bytes], last: Any, receive: Receive) -> Receive:
    pending: list[Any] = [
        {"type": "http.request", "body": chunk, "more_body": True} for chunk in chunks
    ]
    pending.append(last)

    async def replayed() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


def create_http_app(
    server: Any,
    *,
    path: str,
    token: str | None,
    hosts: Sequence[str],
    origins: Sequence[str] = (),
    idle_timeout: float | None,
    max_sessions: int | None,
    routes: Iterable[BaseRoute] = (),
    access: Sequence[RouteAccess] = (),
    auth: JwtAuth | None = None,
    readonly: Callable[[str], bool] = lambda name: False,
    stateless: bool = False,
    events: EventStoreInterface | None = None,
    resume_seconds: float = RESUME_SECONDS,
) -> Starlette:
    """Builds the Starlette app that serves `server` over streamable HTTP at `path`.

    `routes` are mounted beside the MCP endpoint (a terminal's web page, a health check);
    the guard (token, `Host`, `Origin`) runs in front of every route alike, and `access` says
    which of them a browser reaches another way than by the bearer header. Sessions idle for
    `idle_timeout` seconds are closed, and at most `max_sessions` are open at once. A session
    keeps the events it sends in `events` (a fresh `EventStore` when `None`) for a client that
    reconnects with `Last-Event-ID`, and a dropped call of a client that was sent event ids
    waits `resume_seconds` for it before it is cancelled. With a `DurableEventStore`, a
    reconnection to a session another server on its database holds (or this one held before
    a restart) is answered from the store, following the stream until its answer.
    """
    sessions = None if stateless else ResumableSessions(events or EventStore())
    manager = sdk.session_manager(
        server,
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
        stateless=stateless,
        sessions=sessions,
    )
    described = metadata_routes(auth, path) if auth is not None else []
    mounted: list[BaseRoute] = [
        Route(path, endpoint=_Endpoint(manager, auth, readonly, sessions, resume_seconds)),
        *routes,
        *described,
    ]
    guard = Middleware(
        Guard,
        token=token,
        hosts=list(hosts),
        origins=list(origins),
        routes=mounted,
        access=[*access, RouteAccess(routes=tuple(described))],
        verifier=JwtVerifier(auth) if auth is not None else None,
        path=path,
    )

    def lifespan(app: Starlette) -> Any:
        return manager.run()

    return Starlette(routes=mounted, middleware=[guard], lifespan=lifespan)
