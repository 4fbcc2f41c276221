"""The health and readiness routes `orkestrel serve --transport http` mounts for load
balancers and orchestrators: they need no token and tell nothing about the toolbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orkestrel.cli.constants import HEALTH_PATH, READY_PATH
from orkestrel.database import database_fair_limiter

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState


def health_routes(shared: SharedState | None, queue: int | None = None) -> list[Any]:
    """`GET /healthz` answers 200 while the process serves; `GET /readyz` answers 200 when
    it can take calls and 503 otherwise: when more than `queue` units of database work wait
    for a worker thread (`saturated`), or, with `--database`, when PostgreSQL does not answer
    through the pool (`unreachable`)."""
    # Deferred: Starlette is an optional dependency (with the `mcp` or `terminal` extra).
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> JSONResponse:
        waiting = database_fair_limiter().waiting
        if queue is not None and waiting > queue:
            reason = (
                f"{waiting} units of database work wait for a worker thread, "
                f"more than --ready-queue {queue}"
            )
            body = {"status": "unavailable", "database": "saturated", "reason": reason}
            return JSONResponse({**body, "waiting": waiting, "limit": queue}, status_code=503)
        if shared is None or await shared.ready():
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unavailable", "database": "unreachable"}, status_code=503)

    return [
        Route(HEALTH_PATH, health, methods=["GET"]),
        Route(READY_PATH, ready, methods=["GET"]),
    ]
