"""An HTTP session of `orkestrel serve` belongs to the principal that opened it: another JWT
subject (or other credentials) naming its `Mcp-Session-Id` gets exactly what an unknown
session id gets, for every method, for a `Last-Event-ID` resume, and on another server of a
durable event store, while the owner's call runs on and its session serves on."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from support.mcp_client import (
    MAJOR,
    Session,
    Tap,
    connect,
    raw_session,
    types_module,
    until,
    wire,
)
from support.plugins import tool_plugin
from support.postgres import fresh_database
from support.resume import (
    HEADERS,
    STEPPED,
    VERSION,
    assert_rest_of_the_call,
    call_until_first_step,
    missed,
    open_session,
)
from support.serve_http import served

ISSUER = "https://issuer.example"
RESOURCE = "https://mcp.example/mcp"
"""The resource every server here is (its `--resource`), the audience of every token."""

SOURCE = (
    STEPPED
    + '''

@tool
def noted() -> str:
    """Notes that it ran."""
    with (HERE / "noted.log").open("a") as log:
        log.write("ran\\n")
    return "noted"


def session_tools(context):
    return [stepped, noted]
'''
)
"""The tools served: `stepped` (waits for `go.mark` after its first step) and `noted` (writes
a line to `noted.log` each time it runs)."""

Answer = tuple[int, list[tuple[str, str]], bytes]


class Keys:
    """A signing key whose public half the server reads from a JWKS file."""

    def __init__(self, directory: Path) -> None:
        self.key = RSAKey.generate_key(2048, parameters={"kid": "k"})
        self.jwks = directory / "jwks.json"
        self.jwks.write_text(json.dumps({"keys": [self.key.as_dict(private=False)]}))

    def bearer(self, subject: str) -> dict[str, str]:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "aud": RESOURCE,
            "sub": subject,
            "iat": now,
            "exp": now + 600,
            "scope": "mcp:read mcp:write",
        }
        token = jwt.encode({"alg": "RS256", "kid": "k"}, claims, self.key)
        return {"Authorization": f"Bearer {token}"}

    def options(self) -> list[str]:
        return ["--jwks", str(self.jwks), "--issuer", ISSUER, "--resource", RESOURCE]


@contextmanager
def server(tmp_path: Path, *argv: str) -> Iterator[str]:
    """A `serve --transport http` process of the session tools; yields its MCP URL."""
    env = tool_plugin(tmp_path, SOURCE, "session_tools")
    argv = ("--tools", "session_tools", "--resume-seconds", "60", *argv)
    with served(tmp_path, *argv, env=env) as (_, base):
        yield f"{base}/mcp"


def answer(response: httpx.Response) -> Answer:
    """What a client can tell of an answer: its status, headers (but the date) and body."""
    headers = sorted((key, value) for key, value in response.headers.items() if key != "date")
    return response.status_code, headers, response.content


def attempts(session: str, last: str) -> dict[str, tuple[str, dict[str, str], Any]]:
    """Each way of using the session `session` (whose stream's event `last` is known): the
    method, the extra headers and the JSON body."""
    named = {"Mcp-Session-Id": session, "Mcp-Protocol-Version": VERSION}
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "noted"}}
    cancel = {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "stolen"},
    }
    elicited = {"jsonrpc": "2.0", "id": 0, "result": {"action": "accept", "content": {}}}
    return {
        "call": ("POST", named, call),
        "cancel": ("POST", named, cancel),
        "elicitation answer": ("POST", named, elicited),
        "stream": ("GET", named, None),
        "resume": ("GET", {**named, "Last-Event-ID": last}, None),
        "close": ("DELETE", named, None),
    }


def tried(client: httpx.Client, url: str, session: str, last: str) -> dict[str, Answer]:
    """The answer to each of `attempts`."""
    answers = {}
    for name, (method, headers, body) in attempts(session, last).items():
        content = None if body is None else json.dumps(body)
        response = client.request(
            method, url, headers={**HEADERS, **headers}, content=content, timeout=15
        )
        answers[name] = answer(response)
    return answers


def unknown() -> str:
    return uuid.uuid4().hex


def resumed(client: httpx.Client, url: str, session: str, last: str) -> Answer:
    """The answer to a `Last-Event-ID` reconnection to `session` from event `last`."""
    headers = {**HEADERS, "Mcp-Session-Id": session, "Mcp-Protocol-Version": VERSION}
    return answer(client.get(url, headers={**headers, "Last-Event-ID": last}, timeout=15))


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: Any, tmp_path: Path) -> Iterator[list[str]]:
    """The options that put two servers on one durable event store."""
    if request.param == "sqlite":
        yield ["--durable-events", "--data", str(tmp_path / "data")]
        return
    with fresh_database("binding") as dsn:
        yield ["--database", dsn]


def test_another_subject_gets_the_unknown_session_answer_and_the_owners_call_runs_on(
    tmp_path: Path,
) -> None:
    keys = Keys(tmp_path)
    with ExitStack() as stack:
        url = stack.enter_context(server(tmp_path, *keys.options()))
        alice = stack.enter_context(httpx.Client(headers=keys.bearer("alice"), timeout=60))
        bob = stack.enter_context(httpx.Client(headers=keys.bearer("bob"), timeout=60))
        session = open_session(alice, url)
        last = call_until_first_step(alice, url, session)
        own = session["Mcp-Session-Id"]
        # Bob's token is good: he opens a session of his own.
        assert open_session(bob, url)["Mcp-Session-Id"] != own
        stolen = tried(bob, url, own, last)
        never = tried(bob, url, unknown(), last)
        (tmp_path / "go.mark").write_text("go")
        messages = missed(alice, url, session, last)
        after = alice.post(url, json={**CALL_NOTED, "id": 8}, headers=session)
        closed = alice.delete(url, headers=session)
        gone = alice.post(url, json={**CALL_NOTED, "id": 9}, headers=session)
    assert stolen == never
    for name, (status, _, body) in stolen.items():
        assert status == 404, (name, body)
        assert json.loads(body)["error"]["message"] == "Session not found", name
    assert_rest_of_the_call(messages)
    assert not (tmp_path / "cancelled.mark").exists()
    assert after.status_code == 200
    assert '"text":"noted"' in after.text.replace(" ", "")
    # Only Alice's own call ran `noted`.
    assert (tmp_path / "noted.log").read_text() == "ran\n"
    assert closed.status_code == 200
    assert gone.status_code == 404


def test_on_a_durable_store_another_server_refuses_another_subjects_resume_like_a_forged_one(
    tmp_path: Path, store: list[str]
) -> None:
    keys = Keys(tmp_path)
    with ExitStack() as stack:
        first = stack.enter_context(server(tmp_path, *keys.options(), *store))
        second = stack.enter_context(server(tmp_path, *keys.options(), *store))
        alice = stack.enter_context(httpx.Client(headers=keys.bearer("alice"), timeout=60))
        bob = stack.enter_context(httpx.Client(headers=keys.bearer("bob"), timeout=60))
        session = open_session(alice, first)
        last = call_until_first_step(alice, first, session)
        own = session["Mcp-Session-Id"]
        forged = str(int(last) + 10**9)
        stolen = resumed(bob, second, own, last)
        refused = {
            "bob, forged": resumed(bob, second, own, forged),
            "alice, forged": resumed(alice, second, own, forged),
            "bob, unknown session": resumed(bob, second, unknown(), last),
        }
        on_first = tried(bob, first, own, last)
        never = tried(bob, first, unknown(), last)
        (tmp_path / "go.mark").write_text("go")
        messages = missed(alice, second, session, last)
    for name, refusal in refused.items():
        assert stolen == refusal, name
    status, _, body = stolen
    assert status == 404, body
    assert json.loads(body)["error"]["message"] == "Session not found"
    assert on_first == never
    assert_rest_of_the_call(messages)
    assert not (tmp_path / "cancelled.mark").exists()
    assert not (tmp_path / "noted.log").exists()


Progress = Any


async def resumable_call(
    session: Session, name: str, last: str | None, progress: Progress, kept: list[str]
) -> dict[str, Any]:
    """`name` called through the SDK's own resumption API: from event `last` of its stream
    when given (a `Last-Event-ID` reconnection), noting each event id in `kept`."""
    from mcp.shared.message import ClientMessageMetadata

    types = types_module()
    request: Any = types.CallToolRequest(params=types.CallToolRequestParams(name=name))
    if MAJOR < 2:
        request = types.ClientRequest(request)

    async def keep(token: str) -> None:
        kept.append(token)

    metadata = ClientMessageMetadata(resumption_token=last, on_resumption_token_update=keep)
    result = await raw_session(session).send_request(
        request, types.CallToolResult, metadata=metadata, progress_callback=progress
    )
    return wire(result)  # type: ignore[no-any-return]


@asynccontextmanager
async def timeout(seconds: float) -> AsyncIterator[None]:
    with anyio.fail_after(seconds):
        yield


async def outcome(attempt: Any) -> str:
    """What the client tells its user of `attempt`: its result, or its error's type and text."""
    try:
        with anyio.fail_after(20):
            return json.dumps(await attempt)
    except Exception as error:
        return f"{type(error).__name__}: {error}"


async def bob_tries(
    url: str, headers: dict[str, str], session: str, last: str
) -> tuple[dict[str, set[tuple[int, bytes]]], dict[str, str]]:
    """The official client with `headers`, its every request after its own `initialize`
    naming `session`: it calls `noted` and closes, then resumes from event `last`. Gives the
    refused requests' answers and what the client told its user."""
    tap = Tap(session=session)
    told = {}
    async with connect(url, mode="legacy", headers=headers, tap=tap) as bob:
        told["call"] = await outcome(bob.call_tool("noted"))
    told["resume"] = await outcome(resume_once(url, headers, tap, last))
    return tap.refused, told


async def resume_once(url: str, headers: dict[str, str], tap: Tap, last: str) -> str:
    async with connect(url, mode="legacy", headers=headers, tap=tap) as bob:
        return await outcome(resumable_call(bob, "stepped", last, None, []))


@pytest.mark.anyio
async def test_the_official_client_of_another_subject_gets_the_unknown_session_answers(
    tmp_path: Path,
) -> None:
    keys = Keys(tmp_path)
    steps: list[str | None] = []
    kept: list[str] = []
    result: dict[str, Any] = {}

    async def progress(done: float, total: float | None, message: str | None) -> None:
        steps.append(message)

    with server(tmp_path, *keys.options()) as url:
        tap = Tap()
        alice = keys.bearer("alice")
        # A bound, so that a server that lets Bob in fails the test rather than hanging it.
        async with (
            timeout(90),
            connect(url, mode="legacy", headers=alice, tap=tap) as session,
            anyio.create_task_group() as group,
        ):

            async def call() -> None:
                result.update(await resumable_call(session, "stepped", None, progress, kept))

            group.start_soon(call)
            await until(lambda: bool(steps and kept))
            (own,) = tap.sessions
            bob = keys.bearer("bob")
            stolen = await bob_tries(url, bob, own, kept[-1])
            never = await bob_tries(url, bob, unknown(), kept[-1])
            (tmp_path / "go.mark").write_text("go")
    assert stolen == never
    refused, told = stolen
    assert set(refused) == {
        "POST notifications/initialized",
        "GET",
        "POST tools/call",
        "DELETE",
        "GET resume",
    }
    assert "Session" in told["call"], told
    for kind, answers in refused.items():
        assert {status for status, _ in answers} == {404}, kind
        for _, body in answers:
            assert json.loads(body)["error"]["message"] == "Session not found", kind
    assert result["content"] == [{"type": "text", "text": "all three steps done"}]
    assert steps == ["step 1", "step 2", "step 3"]
    assert not (tmp_path / "cancelled.mark").exists()
    assert not (tmp_path / "noted.log").exists()


TOKEN = "one-shared-token"


@pytest.mark.parametrize("auth", ["none", "token"])
def test_with_one_principal_a_session_serves_every_connection_as_before(
    tmp_path: Path, auth: str
) -> None:
    """Without auth (every request is the one local principal) or with `--token` (every
    holder of the token is one principal, whatever the scheme's case), another connection
    resumes, calls in and closes the session."""
    argv = ["--token", TOKEN] if auth == "token" else []
    opener = {"Authorization": f"Bearer {TOKEN}"} if auth == "token" else {}
    other = {"Authorization": f"bearer {TOKEN}"} if auth == "token" else {}
    with ExitStack() as stack:
        url = stack.enter_context(server(tmp_path, *argv))
        first = stack.enter_context(httpx.Client(headers=opener, timeout=60))
        second = stack.enter_context(httpx.Client(headers=other, timeout=60))
        session = open_session(first, url)
        last = call_until_first_step(first, url, session)
        (tmp_path / "go.mark").write_text("go")
        messages = missed(second, url, session, last)
        after = second.post(url, json={**CALL_NOTED, "id": 8}, headers=session)
        closed = second.delete(url, headers=session)
        gone = first.post(url, json={**CALL_NOTED, "id": 9}, headers=session)
    assert_rest_of_the_call(messages)
    assert after.status_code == 200
    assert '"text":"noted"' in after.text.replace(" ", "")
    assert closed.status_code == 200
    assert gone.status_code == 404


CALL_NOTED = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "noted"}}
