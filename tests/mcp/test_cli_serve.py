"""`orkestrel serve` in process: the toolbox, plugins included, served over HTTP."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
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
    assert hello["content"] == [{"type": "text", "text": '"hello mcp"'}]
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
