"""The hostile suite: `orkestrel serve` as a real process under an address-space cap, driven by
the MCP SDK's own client. A call that makes the server ask for more memory than the cap kills
it, so a test that passes shows that the answer was bounded before it was built."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest

from support.mcp_client import Session, connect, stdio

ADDRESS_SPACE = 3 << 30
"""The server's address-space cap (`prlimit --as`), in bytes: far above what it needs to serve,
far below what an unbounded answer asks for."""

Serve = Callable[..., AbstractAsyncContextManager[Session]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def serve(tmp_path: Path) -> Serve:
    """Starts `orkestrel serve ARGV...` over stdio under the address-space cap, with `--root`
    and `--data` in the test's folder unless given, and connects the SDK's client to it."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        pytest.fail("the hostile suite needs prlimit (util-linux)")

    @asynccontextmanager
    async def start(*argv: str, env: dict[str, str] | None = None) -> AsyncIterator[Session]:
        root = tmp_path / "root"
        root.mkdir(exist_ok=True)
        places = [] if "--root" in argv else ["--root", str(root)]
        places += (
            [] if "--data" in argv or "--database" in argv else ["--data", str(tmp_path / "data")]
        )
        command = [f"--as={ADDRESS_SPACE}", "--", sys.executable, "-m", "orkestrel", "serve"]
        # One malloc arena per thread would reserve 64 MiB of address space each.
        environment = {"MALLOC_ARENA_MAX": "2", **(env or {})}
        async with connect(stdio(prlimit, [*command, *places, *argv], environment)) as client:
            yield client

    return start
