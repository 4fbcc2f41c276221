"""Real HTTP on loopback: an ASGI app under uvicorn on a free port, for as long as a block runs."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
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
