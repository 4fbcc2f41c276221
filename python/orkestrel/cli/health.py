"""The health and readiness routes `orkestrel serve --transport http` mounts for load
balancers and orchestrators: they need no token and tell nothing about the toolbox."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orkestrel.cli.constants import HEALTH_PATH, READY_PATH

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState


def health_routes(shared: SharedState | None) -> list[Any]:
    """`GET /healthz` answers 200 while the process serves; `GET /readyz` answers 200 when
    it can take calls (with `--database`, when PostgreSQL answers through the pool) and 503
    otherwise."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> JSONResponse:
        if shared is None or await shared.ready():
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "unavailable", "database": "unreachable"}, status_code=503)

    return [
        Route(HEALTH_PATH, health, methods=["GET"]),
        Route(READY_PATH, ready, methods=["GET"]),
    ]
