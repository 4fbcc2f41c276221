"""JWT access tokens checked as an MCP resource server (RFC 9068 tokens, RFC 9728 metadata).

joserfc is the JOSE library: typed (`py.typed`), it refuses any algorithm not in the
allow-list it is given (so `alg: none` and HMAC-with-a-public-key confusion cannot pass), and
it reads a JWKS as a key set looked up by `kid`, which PyJWT splits across a sync fetcher."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from orkestrel.mcp.constants import (
    JWKS_FETCH_SECONDS,
    JWKS_KID_REFETCH_SECONDS,
    JWKS_MAX_BYTES,
    JWKS_REFRESH_SECONDS,
)

ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""The signature algorithms a token may name: public-key ones only, as the keys come from a
JWKS (an HMAC or `none` token would need no private key to forge)."""


@dataclass(frozen=True)
class JwtAuth:
    """Represents how bearer tokens are checked: JWTs signed by a key of `jwks` (an
    `http(s)://` URL or a file), issued by `issuer`, for `resource` (the `aud` they must name;
    by default the URL the request reached the MCP endpoint at), signed with one of
    `algorithms`. A token with `read_scope` may list and call read-only tools; one with
    `write_scope` may call every tool. `authorization_servers` are advertised in the
    protected resource metadata (by default the issuer). A JWKS URL is fetched within
    `jwks_timeout` seconds and `jwks_max_bytes` bytes (a file is read within the same size),
    and kept `jwks_refresh` seconds; a token whose `kid` it lacks fetches it again once it is
    `JWKS_KID_REFETCH_SECONDS` old (or `jwks_refresh`, when shorter)."""

    jwks: str
    issuer: str
    resource: str | None = None
    algorithms: tuple[str, ...] = ("RS256", "ES256", "EdDSA")
    read_scope: str = "mcp:read"
    write_scope: str = "mcp:write"
    authorization_servers: tuple[str, ...] = ()
    leeway: int = 0
    jwks_timeout: float = JWKS_FETCH_SECONDS
    jwks_max_bytes: int = JWKS_MAX_BYTES
    jwks_refresh: float = JWKS_REFRESH_SECONDS

    def __post_init__(self) -> None:
        refused = [name for name in self.algorithms if name not in ASYMMETRIC_ALGORITHMS]
        if refused or not self.algorithms:
            raise ValueError(
                f"JWT algorithms must be public-key ones of {sorted(ASYMMETRIC_ALGORITHMS)}, "
                f"got {list(self.algorithms)!r}"
            )
        for option, value in (
            ("jwks_timeout", self.jwks_timeout),
            ("jwks_max_bytes", self.jwks_max_bytes),
            ("jwks_refresh", self.jwks_refresh),
        ):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise ValueError(f"{option} must be a positive number, got {value!r}")
        if not self.issuer:
            raise ValueError("JWT auth needs the issuer its tokens must name")


@dataclass(frozen=True)
class Grant:
    """Represents what a verified token grants: its subject and its scopes."""

    subject: str | None
    scopes: frozenset[str]


class TokenRefused(Exception):
    """Represents a bearer token that does not pass, with why (sent to the client)."""


@dataclass
class JwtVerifier:
    """Checks bearer JWTs against `auth`, reading its key set from the file once and from a
    URL every `auth.jwks_refresh` seconds (sooner only for a token whose `kid` it has not
    seen, at most every `JWKS_KID_REFETCH_SECONDS`)."""

    auth: JwtAuth
    _keys: Any = None
    _fetched: float = field(default=-1e18)

    async def verify(self, header: bytes | None, resource: str) -> Grant:
        """The grant of an `Authorization: Bearer <jwt>` header for a request to `resource`;
        raises `TokenRefused` saying why it does not pass."""
        # Deferred: joserfc is an optional dependency (the `auth` extra).
        from joserfc import jwt
        from joserfc.errors import JoseError

        if header is None or header[:7].lower() != b"bearer ":
            raise TokenRefused("missing bearer token")
        token = header[7:].strip().decode("latin-1")
        if token.count(".") != 2:
            raise TokenRefused("the bearer token is not a signed JWT")
        audience = self.auth.resource or resource
        for attempt in range(2):
            keys = await self._key_set(refresh=attempt > 0)
            try:
                decoded = jwt.decode(token, keys, algorithms=list(self.auth.algorithms))
            except (JoseError, ValueError, KeyError, TypeError) as error:
                if attempt == 0 and _unknown_key(error) and self._stale():
                    continue
                raise TokenRefused(f"invalid token: {_reason(error)}") from None
            registry = jwt.JWTClaimsRegistry(
                leeway=self.auth.leeway,
                iss={"essential": True, "value": self.auth.issuer},
                aud={"essential": True, "value": audience},
                exp={"essential": True},
            )
            try:
                registry.validate(decoded.claims)
            except (JoseError, ValueError, TypeError) as error:
                raise TokenRefused(f"invalid token: {_reason(error)}") from None
            return _grant(decoded.claims)
        raise TokenRefused("invalid token")  # pragma: no cover - the loop always returns

    def _stale(self) -> bool:
        wait = min(self.auth.jwks_refresh, JWKS_KID_REFETCH_SECONDS)
        return time.monotonic() - self._fetched >= wait and self._is_url()

    def _is_url(self) -> bool:
        return self.auth.jwks.startswith(("http://", "https://"))

    async def _key_set(self, *, refresh: bool) -> Any:
        # Deferred: joserfc is an optional dependency (the `auth` extra).
        from joserfc.jwk import KeySet

        expired = time.monotonic() - self._fetched >= self.auth.jwks_refresh
        if self._keys is not None and not refresh and not (expired and self._is_url()):
            return self._keys
        data = await (self._fetch() if self._is_url() else self._read())
        if not isinstance(data, Mapping) or not isinstance(data.get("keys"), list):
            raise TokenRefused("the JWKS holds no 'keys' list")
        self._keys = KeySet.import_key_set(dict(data))  # type: ignore[arg-type]
        self._fetched = time.monotonic()
        return self._keys

    async def _read(self) -> Any:
        cap = self.auth.jwks_max_bytes
        async with await anyio.open_file(Path(self.auth.jwks), "rb") as file:
            data = await file.read(cap + 1)
        if len(data) > cap:
            raise TokenRefused(f"the JWKS file is over {cap} bytes, the most read")
        return json.loads(data)

    async def _fetch(self) -> Any:
        # Deferred: httpx is an optional dependency (the `mcp` extra).
        import httpx

        cap = self.auth.jwks_max_bytes
        seconds = self.auth.jwks_timeout
        try:
            with anyio.fail_after(seconds):
                async with (
                    httpx.AsyncClient(timeout=seconds) as client,
                    client.stream("GET", self.auth.jwks) as answer,
                ):
                    answer.raise_for_status()
                    body = bytearray()
                    async for chunk in answer.aiter_bytes():
                        body += chunk
                        if len(body) > cap:
                            raise TokenRefused(
                                f"the JWKS could not be read: it is over {cap} bytes, the most read"
                            )
                    return json.loads(body)
        except TimeoutError:
            raise TokenRefused(
                f"the JWKS could not be read: no whole answer within {seconds:g} s"
            ) from None
        except (httpx.HTTPError, ValueError) as error:
            raise TokenRefused(f"the JWKS could not be read: {error}") from None


def _unknown_key(error: Exception) -> bool:
    return isinstance(error, ValueError | KeyError) and "key" in str(error).lower()


def _reason(error: Exception) -> str:
    text = getattr(error, "description", None) or str(error) or type(error).__name__
    return str(text).splitlines()[0][:200]


def _grant(claims: Mapping[str, Any]) -> Grant:
    scope = claims.get("scope")
    scopes = frozenset(scope.split()) if isinstance(scope, str) else frozenset()
    subject = claims.get("sub")
    return Grant(subject if isinstance(subject, str) else None, scopes)
