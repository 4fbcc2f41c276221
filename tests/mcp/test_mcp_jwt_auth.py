"""Bearer JWTs checked as an MCP resource server: tokens minted here with joserfc, their keys
served as a JWKS file or over real loopback HTTP, the server under real uvicorn, called by
the SDK's own client and by raw HTTP."""

from __future__ import annotations

import io
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import ECKey, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from orkestrel.cli.serve import run_serve
from orkestrel.mcp import JwtAuth
from orkestrel.tool import ToolManager, create_tool
from support.mcp_client import connect, text
from support.serve_http import INITIALIZE, parse_serve, served, serving_manager
from support.servers import serving

pytestmark = pytest.mark.anyio

ISSUER = "https://issuer.example"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


class Keys:
    """A signing key whose public half is in the served JWKS, and one that is not."""

    def __init__(self) -> None:
        self.known = RSAKey.generate_key(2048, parameters={"kid": "known"})
        self.stranger = RSAKey.generate_key(2048, parameters={"kid": "stranger"})

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.known.as_dict(private=False)]}

    def mint(self, audience: str, *, key: Any = None, alg: str = "RS256", **claims: Any) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "aud": audience, "sub": "ada", "iat": now, "exp": now + 300}
        body.update(claims)
        signer = key or self.known
        return jwt.encode({"alg": alg, "kid": signer.kid}, body, signer)


def toolbox(ran: list[str]) -> ToolManager:
    def look(args: dict[str, Any]) -> str:
        ran.append("look")
        return "looked"

    def change(args: dict[str, Any]) -> str:
        ran.append("change")
        return "changed"

    manager = ToolManager()
    manager.add(
        [
            create_tool(
                name="look", description="Reads.", annotations={"readOnlyHint": True}, execute=look
            ),
            create_tool(name="change", description="Writes.", execute=change),
        ]
    )
    return manager


@asynccontextmanager
async def jwks_over_http(keys: Keys) -> AsyncIterator[str]:
    async def jwks(request: Request) -> JSONResponse:
        return JSONResponse(keys.jwks())

    async with serving(Starlette(routes=[Route("/jwks.json", jwks)])) as base:
        yield base + "/jwks.json"


def call(name: str, ident: int = 2) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name}}


async def test_a_valid_token_calls_tools_within_its_scopes(tmp_path: Path) -> None:
    keys, ran = Keys(), []
    async with jwks_over_http(keys) as jwks:
        auth = JwtAuth(jwks=jwks, issuer=ISSUER)
        async with serving_manager(toolbox(ran), auth=auth) as url:
            writer = {"Authorization": f"Bearer {keys.mint(url, scope='mcp:read mcp:write')}"}
            reader = {"Authorization": f"Bearer {keys.mint(url, scope='mcp:read')}"}
            async with connect(url, headers=writer) as client:
                listed = await client.list_tools()
                changed = await client.call_tool("change", {})
            async with connect(url, headers=reader) as client:
                looked = await client.call_tool("look", {})
            async with httpx.AsyncClient() as http:
                opened = await http.post(
                    url, content=json.dumps(INITIALIZE), headers={**ACCEPT, **reader}
                )
                session = {"mcp-session-id": opened.headers["mcp-session-id"]}
                refused = await http.post(
                    url, json=call("change"), headers={**ACCEPT, **reader, **session}
                )
    assert sorted(tool["name"] for tool in listed) == ["change", "look"]
    assert text(changed) == "changed"
    assert text(looked) == "looked"
    assert refused.status_code == 403
    challenge = refused.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="insufficient_scope", scope="mcp:write"')
    assert "resource_metadata=" in challenge
    assert "needs the mcp:write scope" in refused.json()["error"]["message"]
    assert ran == ["change", "look"]


async def test_bad_tokens_are_refused_and_nothing_runs(tmp_path: Path) -> None:
    keys, ran = Keys(), []
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    auth = JwtAuth(jwks=str(jwks), issuer=ISSUER, algorithms=("RS256",))
    async with serving_manager(toolbox(ran), auth=auth) as url:
        now = int(time.time())
        good = keys.mint(url, scope="mcp:write")
        head, body, signature = good.split(".")
        forged_claims = json.loads(_unb64(body)) | {"scope": "mcp:write admin"}
        tokens = {
            "expired": keys.mint(url, scope="mcp:write", exp=now - 60, iat=now - 600),
            "not yet": keys.mint(url, scope="mcp:write", nbf=now + 600),
            "wrong audience": keys.mint("https://other.example/mcp", scope="mcp:write"),
            "wrong issuer": keys.mint(url, scope="mcp:write", iss="https://evil.example"),
            "unknown key": keys.mint(url, key=keys.stranger, scope="mcp:write"),
            "alg none": _b64({"alg": "none", "kid": "known"}) + "." + body + ".",
            "forged": f"{head}.{_b64(forged_claims)}.{signature}",
            "other alg": keys.mint(
                url, key=ECKey.generate_key("P-256", parameters={"kid": "known"}), alg="ES256"
            ),
            "garbage": "not-a-jwt",
        }
        statuses: dict[str, tuple[int, str, str]] = {}
        async with httpx.AsyncClient() as http:
            for label, token in tokens.items():
                answer = await http.post(
                    url,
                    content=json.dumps(call("change")),
                    headers={**ACCEPT, "Authorization": f"Bearer {token}"},
                )
                statuses[label] = (
                    answer.status_code,
                    answer.headers.get("www-authenticate", ""),
                    answer.json()["error"]["message"],
                )
            bare = await http.post(url, content=json.dumps(INITIALIZE), headers=ACCEPT)
            scopeless = await http.post(
                url,
                content=json.dumps(INITIALIZE),
                headers={**ACCEPT, "Authorization": f"Bearer {keys.mint(url, scope='profile')}"},
            )
            base = url.removesuffix("/mcp")
            metadata = await http.get(base + "/.well-known/oauth-protected-resource/mcp")
    for label, (status, challenge, message) in statuses.items():
        assert status == 401, label
        assert challenge.startswith('Bearer error="invalid_token"'), label
        assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge
        assert message.startswith(("invalid token", "the bearer token is not")), (label, message)
    assert bare.status_code == 401
    assert scopeless.status_code == 403
    assert 'error="insufficient_scope"' in scopeless.headers["www-authenticate"]
    assert metadata.status_code == 200
    assert metadata.json() == {
        "resource": url,
        "authorization_servers": [ISSUER],
        "scopes_supported": ["mcp:read", "mcp:write"],
        "bearer_methods_supported": ["header"],
        "resource_signing_alg_values_supported": ["RS256"],
    }
    assert ran == []


async def test_the_audience_is_the_configured_resource_and_a_replay_elsewhere_is_refused() -> None:
    keys, ran = Keys(), []
    async with jwks_over_http(keys) as jwks:
        auth = JwtAuth(jwks=jwks, issuer=ISSUER, resource="https://mcp.example/mcp")
        async with serving_manager(toolbox(ran), auth=auth) as url:
            meant = keys.mint("https://mcp.example/mcp", scope="mcp:write")
            replayed = keys.mint(url, scope="mcp:write")
            async with connect(url, headers={"Authorization": f"Bearer {meant}"}) as client:
                answer = await client.call_tool("change", {})
            async with httpx.AsyncClient() as http:
                refused = await http.post(
                    url,
                    content=json.dumps(INITIALIZE),
                    headers={**ACCEPT, "Authorization": f"Bearer {replayed}"},
                )
    assert text(answer) == "changed"
    assert refused.status_code == 401
    assert ran == ["change"]


async def test_a_token_replayed_after_it_expired_is_refused_on_its_own_open_session(
    tmp_path: Path,
) -> None:
    keys, ran = Keys(), []
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    auth = JwtAuth(jwks=str(jwks), issuer=ISSUER)
    async with serving_manager(toolbox(ran), auth=auth) as url, httpx.AsyncClient() as http:
        expiry = int(time.time()) + 2
        bearer = {"Authorization": f"Bearer {keys.mint(url, scope='mcp:write', exp=expiry)}"}
        opened = await http.post(url, content=json.dumps(INITIALIZE), headers={**ACCEPT, **bearer})
        session = {**ACCEPT, **bearer, "mcp-session-id": opened.headers["mcp-session-id"]}
        first = await http.post(url, json=call("change"), headers=session)
        # Sleeps past the token's `exp` second: no event marks a clock passing it.
        await anyio.sleep(expiry + 1 - time.time())
        replayed = await http.post(url, json=call("change", 3), headers=session)
        listing = await http.post(
            url, json={"jsonrpc": "2.0", "id": 4, "method": "tools/list"}, headers=session
        )
    assert (opened.status_code, first.status_code) == (200, 200)
    for refused in (replayed, listing):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    assert ran == ["change"]


async def test_the_fastmcp_client_calls_with_a_valid_token_and_is_refused_a_forged_one(
    tmp_path: Path,
) -> None:
    pytest.importorskip("fastmcp", reason="the fastmcp client needs the 2.x SDK line")
    from fastmcp import Client

    keys, ran = Keys(), []
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    auth = JwtAuth(jwks=str(jwks), issuer=ISSUER)
    async with serving_manager(toolbox(ran), auth=auth) as url:
        good = keys.mint(url, scope="mcp:read mcp:write")
        async with Client(url, auth=good) as client:
            answer = await client.call_tool("change", {})
        for token in (keys.mint(url, key=keys.stranger, scope="mcp:write"), good[:-4] + "AAAA"):
            with pytest.raises(Exception, match="invalid token"):
                async with Client(url, auth=token) as client:
                    await client.call_tool("change", {})
    assert answer.content[0].text == "changed"  # type: ignore[union-attr]
    assert ran == ["change"]


def test_symmetric_and_none_algorithms_are_refused_at_start() -> None:
    for algorithms in (("HS256",), ("none",), ()):
        with pytest.raises(ValueError, match="public-key"):
            JwtAuth(jwks="keys.json", issuer=ISSUER, algorithms=algorithms)


def _b64(value: dict[str, Any]) -> str:
    import base64

    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def test_serve_checks_jwts_from_the_command_line(tmp_path: Path) -> None:
    keys = Keys()
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps(keys.jwks()))
    with served(tmp_path, "--jwks", str(jwks), "--issuer", ISSUER) as (_, base):
        url = base + "/mcp"
        reader = {"Authorization": f"Bearer {keys.mint(url, scope='mcp:read')}"}
        async with connect(url, headers=reader) as client:
            listed = await client.list_tools()
        async with httpx.AsyncClient() as http:
            bare = await http.post(url, content=json.dumps(INITIALIZE), headers=ACCEPT)
    assert [tool["name"] for tool in listed] == ["infer"]
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"].startswith('Bearer error="invalid_token"')


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--jwks", "k.json"], "--jwks needs --issuer"),
        (["--issuer", ISSUER], "--issuer needs --jwks"),
        (["--jwks", "k.json", "--issuer", ISSUER, "--token", "t"], "pass one"),
        (["--jwks", "k.json", "--issuer", ISSUER, "--jwt-algorithm", "HS256"], "public-key"),
    ],
)
async def test_serve_refuses_auth_options_that_do_not_fit(argv: list[str], message: str) -> None:
    err = io.StringIO()
    status = await run_serve(parse_serve("--transport", "http", "--port", "0", *argv), stderr=err)
    assert status == 2
    assert message in err.getvalue()


async def called(url: str, token: str) -> httpx.Response:
    """The answer to opening a session with `token`, over raw HTTP."""
    headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=30) as http:
        return await http.post(url, content=json.dumps(INITIALIZE), headers=headers)


async def test_an_oversized_or_slow_jwks_is_refused_unread_and_nothing_runs(
    tmp_path: Path,
) -> None:
    keys, ran = Keys(), []
    padding = [{"kty": "oct", "kid": f"pad{n}", "k": "A" * 1000} for n in range(2000)]

    async def huge(request: Request) -> JSONResponse:
        return JSONResponse({"keys": [keys.known.as_dict(private=False), *padding]})

    async def slow(request: Request) -> JSONResponse:
        await anyio.sleep(30)
        return JSONResponse(keys.jwks())

    routes = [Route("/huge.json", huge), Route("/slow.json", slow)]
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"keys": [keys.known.as_dict(private=False), *padding]}))
    answers = []
    async with serving(Starlette(routes=routes)) as base:
        for jwks in (f"{base}/huge.json", f"{base}/slow.json", str(big)):
            auth = JwtAuth(jwks=jwks, issuer=ISSUER, jwks_timeout=1, jwks_max_bytes=65536)
            async with serving_manager(toolbox(ran), auth=auth) as url:
                answers.append(await called(url, keys.mint(url, scope="mcp:write")))
    assert [answer.status_code for answer in answers] == [401, 401, 401]
    lines = [answer.json()["error"]["message"] for answer in answers]
    assert lines[0] == "the JWKS could not be read: it is over 65536 bytes, the most read"
    assert lines[1] == "the JWKS could not be read: no whole answer within 1 s"
    assert lines[2] == "the JWKS file is over 65536 bytes, the most read"
    assert all(a.headers["www-authenticate"].startswith("Bearer ") for a in answers)
    assert ran == []


async def test_after_a_key_rotation_new_tokens_pass_and_the_removed_keys_tokens_do_not(
    tmp_path: Path,
) -> None:
    keys, ran = Keys(), []
    rotated = RSAKey.generate_key(2048, parameters={"kid": "rotated"})
    served_keys = [keys.known]
    fetches: list[float] = []

    async def jwks(request: Request) -> JSONResponse:
        fetches.append(time.monotonic())
        return JSONResponse({"keys": [key.as_dict(private=False) for key in served_keys]})

    async with serving(Starlette(routes=[Route("/jwks.json", jwks)])) as base:
        auth = JwtAuth(jwks=f"{base}/jwks.json", issuer=ISSUER, jwks_refresh=1)
        async with serving_manager(toolbox(ran), auth=auth) as url:
            old = keys.mint(url, scope="mcp:write")
            new = keys.mint(url, key=rotated, scope="mcp:write")
            before = [(await called(url, token)).status_code for token in (old, new)]
            served_keys[:] = [rotated]
            # A token with an unknown kid refetches only once the keys are jwks_refresh old.
            await anyio.sleep(1.2)
            after_new = await called(url, new)
            after_old = await called(url, old)
            burst = [(await called(url, old)).status_code for _ in range(20)]
    assert before == [200, 401]
    assert after_new.status_code == 200
    assert after_old.status_code == 401
    assert after_old.json()["error"]["message"].startswith("invalid token")
    assert burst == [401] * 20
    assert fetches


async def test_tokens_of_unknown_keys_do_not_make_the_server_fetch_the_jwks_each_time() -> None:
    keys, ran = Keys(), []
    fetches: list[str] = []

    async def jwks(request: Request) -> JSONResponse:
        fetches.append(request.url.path)
        return JSONResponse(keys.jwks())

    async with serving(Starlette(routes=[Route("/jwks.json", jwks)])) as base:
        auth = JwtAuth(jwks=f"{base}/jwks.json", issuer=ISSUER)
        async with serving_manager(toolbox(ran), auth=auth) as url:
            strangers = [
                (await called(url, keys.mint(url, key=keys.stranger, scope="mcp:write")))
                for _ in range(20)
            ]
    assert [answer.status_code for answer in strangers] == [401] * 20
    assert len(fetches) == 1
    assert ran == []
