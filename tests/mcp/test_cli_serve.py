"""`orkestrel serve` in process: the toolbox, plugins included, served over HTTP."""

from __future__ import annotations

import argparse
import functools
import io
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx
import pytest

from orkestrel.cli.serve import register, run_serve
from support.mcp_client import connect

pytestmark = pytest.mark.anyio


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


async def listening(app: ModuleType, err: io.StringIO) -> str:
    async def printed() -> bool:
        return "listening on " in err.getvalue()

    await app.poll(printed)
    return err.getvalue().split("listening on ", 1)[1].split()[0]


async def test_serves_the_selected_plugin_over_http(
    app: ModuleType, plugin: Any, tmp_path: Path
) -> None:
    err = io.StringIO()
    options = parse(
        "--transport", "http", "--port", "0", "--tools", "greet", "--root", str(tmp_path)
    )
    status: list[int] = []

    async def serve() -> None:
        status.append(await run_serve(options, stderr=err))

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        url = await listening(app, err)
        async with connect(url) as client:
            names = [tool["name"] for tool in await client.list_tools()]
            hello = await client.call_tool("hello", {"who": "mcp"})
            refused = await client.call_tool("refuse", {"why": "because"})
        group.cancel_scope.cancel()
    assert names == ["hello", "where", "refuse"]
    assert hello["content"] == [{"type": "text", "text": "hello mcp"}]
    assert (refused.get("isError", False), refused["content"]) == (
        True,
        [{"type": "text", "text": "refused: because"}],
    )


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["--tools", "nope"], 2, "orkestrel serve: unknown tool: nope"),
        (["--tools", "broken"], 1, "orkestrel serve: tool factory 'broken' failed"),
    ],
)
async def test_setup_failures_exit_before_serving(
    plugin: Any, tmp_path: Path, argv: list[str], status: int, message: str
) -> None:
    err = io.StringIO()
    options = parse("--transport", "http", "--port", "0", "--root", str(tmp_path), *argv)
    assert await run_serve(options, stderr=err) == status
    assert err.getvalue().startswith(message)
    assert "listening on" not in err.getvalue()


async def test_without_the_mcp_extra_serve_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "orkestrel.mcp", None)
    err = io.StringIO()
    assert await run_serve(parse("--root", str(tmp_path)), stderr=err) == 1
    assert err.getvalue().startswith("orkestrel serve: ")
    assert "orkestrel.mcp" in err.getvalue()


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    from orkestrel import __version__
    from orkestrel.cli import main

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"orkestrel {__version__}\n"


def test_the_serving_defaults_mirror_the_bridge() -> None:
    from orkestrel import mcp
    from orkestrel.cli import serve as cli

    options = parse()
    assert (
        options.session_idle,
        options.max_sessions,
        options.max_answer_bytes,
        options.timeout,
    ) == (
        mcp.DEFAULT_SESSION_IDLE_SECONDS,
        mcp.DEFAULT_MAX_SESSIONS,
        mcp.DEFAULT_MAX_ANSWER_BYTES,
        None,
    )
    assert cli.TOKEN_ENV == mcp.TOKEN_ENV


@pytest.mark.parametrize(
    "argv",
    [
        ["--timeout", "0"],
        ["--timeout", "soon"],
        ["--timeout", "nan"],
        ["--session-idle", "-1"],
        ["--max-sessions", "0"],
        ["--max-sessions", "1.5"],
        ["--max-answer-bytes", "0"],
        ["--max-answer-bytes", "many"],
        ["--database-threads", "0"],
        ["--session-database-threads", "-2"],
        ["--ready-queue", "many"],
    ],
)
def test_bad_serving_options_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        parse(*argv)
    assert stop.value.code == 2


async def test_extra_routes_are_mounted_beside_mcp_behind_the_guard(
    app: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from orkestrel.cli import serve as cli

    def health(options: argparse.Namespace, manager: Any) -> list[Route]:
        count = manager.count
        return [Route("/health", lambda request: PlainTextResponse(f"{count} tools"))]

    monkeypatch.setattr(cli, "route_factories", lambda: [health])
    err = io.StringIO()
    argv = ["--transport", "http", "--port", "0", "--tools", "infer", "--token", "t"]
    options = parse(*argv, "--root", str(tmp_path))
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))
        url = await listening(app, err)
        side = url.removesuffix("/mcp") + "/health"
        async with httpx.AsyncClient() as http:
            bare = await http.get(side)
            authorized = await http.get(side, headers={"Authorization": "Bearer t"})
        group.cancel_scope.cancel()
    assert bare.status_code == 401
    assert (authorized.status_code, authorized.text) == (200, "1 tools")


async def test_the_database_threads_are_sized_and_shared_by_session_while_serving(
    app: ModuleType, tmp_path: Path
) -> None:
    from orkestrel.database import DATABASE_THREAD_LIMIT, database_fair_limiter
    from orkestrel.mcp.elicitation import current_client

    defaults = parse()
    assert (defaults.database_threads, defaults.session_database_threads) == (16, 8)
    assert defaults.ready_queue == 128
    fair = database_fair_limiter()
    before = (fair.limiter.total_tokens, fair.per_caller, fair.caller)
    assert before[:2] == (DATABASE_THREAD_LIMIT, None)
    err = io.StringIO()
    argv = ["--transport", "http", "--port", "0", "--tools", "infer", "--root", str(tmp_path)]
    options = parse(*argv, "--database-threads", "5", "--session-database-threads", "2")
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))
        await listening(app, err)
        serving = (fair.limiter.total_tokens, fair.per_caller, fair.caller)
        group.cancel_scope.cancel()
    assert serving == (5, 2, current_client)
    assert (fair.limiter.total_tokens, fair.per_caller, fair.caller) == before
