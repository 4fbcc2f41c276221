"""`orkestrel serve --transport http` run in this process on a free loopback port."""

from __future__ import annotations

import argparse
import functools
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from orkestrel.cli.serve import register, run_serve
from support.polling import until


def parse_serve(*argv: str) -> argparse.Namespace:
    """Parses `orkestrel serve ARGV...`."""
    parser = argparse.ArgumentParser(prog="orkestrel")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


@asynccontextmanager
async def http_server(*argv: str) -> AsyncIterator[tuple[str, io.StringIO]]:
    """Runs `orkestrel serve --transport http --port 0 --tools infer ARGV...` until the block
    ends; yields the MCP endpoint's URL and the server's stderr so far. Needs `--ask`."""
    err = io.StringIO()
    options = parse_serve(
        "--transport", "http", "--port", "0", "--tools", "infer", "--root", "/nonexistent", *argv
    )
    async with anyio.create_task_group() as group:
        group.start_soon(functools.partial(run_serve, options, stderr=err))
        await until(
            lambda: "answer forms at " in err.getvalue() or "orkestrel serve:" in err.getvalue(), 60
        )
        assert "orkestrel serve:" not in err.getvalue(), err.getvalue()
        url = err.getvalue().split("listening on ", 1)[1].split()[0]
        try:
            yield url, err
        finally:
            group.cancel_scope.cancel()
