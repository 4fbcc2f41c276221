"""Which workspace files each connection subscribed to, and telling them when a workspace tool
call changed one: `resources/subscribe` on the 2025 era, `subscriptions/listen` streams on the
2026 era."""

from __future__ import annotations

import logging
import weakref
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

import anyio

from orkestrel.mcp import sdk
from orkestrel.mcp.constants import MAX_SUBSCRIPTIONS, MAX_URI
from orkestrel.mcp.features import WORKSPACE_SCHEME
from orkestrel.tool import ToolManagerInterface

logger = logging.getLogger("orkestrel.mcp")


class ResourceSubscriptions:
    """Represents the workspace file URIs each connection subscribed to (at most
    `MAX_SUBSCRIPTIONS` each). `updated(paths)` sends `notifications/resources/updated` for
    each subscribed URI among `paths` (every subscribed one when `paths` is `None`: a change
    whose files are not known), and publishes the same to the 2026 era's listen streams."""

    def __init__(self, manager: ToolManagerInterface) -> None:
        self._manager = manager
        self._subscribed: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._servers: list[Any] = []

    def serve(self, server: Any) -> None:
        """Adds an SDK server whose listen streams (2026 era) hear of updates too."""
        self._servers.append(server)

    async def subscribe(self, request: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        uri = _workspace_uri(params.get("uri"), "resources/subscribe")
        if self._manager.tool("workspace") is None:
            raise ValueError(
                f"resources/subscribe: {uri[:100]!r} cannot be subscribed to; this server "
                "serves no workspace tool, so no workspace file"
            )
        subscribed = self._subscribed.setdefault(sdk.connection(request), set())
        if uri not in subscribed and len(subscribed) >= MAX_SUBSCRIPTIONS:
            raise ValueError(
                f"resources/subscribe: this connection already holds {MAX_SUBSCRIPTIONS} "
                "subscriptions, the most it may; unsubscribe from one first"
            )
        subscribed.add(uri)
        return {}

    async def unsubscribe(self, request: sdk.Request, params: dict[str, Any]) -> dict[str, Any]:
        uri = _workspace_uri(params.get("uri"), "resources/unsubscribe")
        self._subscribed.get(sdk.connection(request), set()).discard(uri)
        return {}

    async def updated(self, paths: Iterable[str] | None) -> None:
        """Tells every subscriber of the changed files (all of them when `paths` is `None`)."""
        changed = None if paths is None else {WORKSPACE_SCHEME + quote(path) for path in paths}
        for server in self._servers:
            await sdk.publish_resources_updated(server, changed)
        for link, subscribed in list(self._subscribed.items()):
            for uri in sorted(subscribed if changed is None else subscribed & changed):
                try:
                    with anyio.fail_after(5):
                        await link.send_resource_updated(uri)
                except Exception as error:  # a closed connection cannot be told; forget it
                    logger.debug("resources/updated not delivered: %s", error)
                    self._subscribed.pop(link, None)
                    break


def _workspace_uri(uri: Any, method: str) -> str:
    if not isinstance(uri, str) or len(uri) > MAX_URI or not uri.startswith(WORKSPACE_SCHEME):
        shown = uri[:100] if isinstance(uri, str) else uri
        raise ValueError(
            f"{method}: {shown!r} cannot be subscribed to; expected a {WORKSPACE_SCHEME}<path> "
            f"URI of at most {MAX_URI} characters (only workspace files announce updates)"
        )
    return uri
