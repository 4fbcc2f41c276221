"""Real HTTP on loopback: an ASGI app under uvicorn on a free port, or a server process that
says where it listens, for as long as a block runs."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio

from support.polling import until


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """Serves `app` with uvicorn on 127.0.0.1 and a free port; yields the base URL."""
    import uvicorn

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            app, log_config=None, log_level="warning", lifespan="off", timeout_graceful_shutdown=1
        )
    )
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: server.serve(sockets=[listener]))
        await until(lambda: server.started)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
    listener.close()


@contextmanager
def spawn_process(
    command: list[str], log: Path, env: dict[str, str] | None = None
) -> Iterator[str]:
    """Starts `command`, which prints `listening on <url>` to `log`, and yields the URL until
    the block ends; then stops the process."""
    environment = None if env is None else {**os.environ, **env}
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=sink, env=environment)
    try:
        deadline = time.monotonic() + 60
        url = None
        while url is None:
            for line in log.read_text().splitlines():
                if line.startswith("listening on "):
                    url = line.removeprefix("listening on ").strip()
            if url is None:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{log.read_text()}")
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(15)
