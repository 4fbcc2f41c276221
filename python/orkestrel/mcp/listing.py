"""`ListingWatch`: tells each connected client when the served tool list changed."""

from __future__ import annotations

import logging
import weakref
from typing import Any

import anyio

from orkestrel.mcp import sdk
from orkestrel.tool import ToolManagerInterface

logger = logging.getLogger("orkestrel.mcp")

Fingerprint = tuple[tuple[str, int], ...]


def fingerprint(manager: ToolManagerInterface) -> Fingerprint:
    """What identifies a listing: each tool's name and object, in order (tools are immutable
    definitions, so a changed tool is a replaced object)."""
    return tuple((tool.name, id(tool)) for tool in manager.tools())


class ListingWatch:
    """Represents the listing each connection was last shown. `check()` sends
    `notifications/tools/list_changed` once to every connection whose listing is out of date;
    the server runs it after every call, and `serve` also every `POLL_SECONDS`."""

    def __init__(self, manager: ToolManagerInterface) -> None:
        self._manager = manager
        self._seen: weakref.WeakKeyDictionary[Any, Fingerprint] = weakref.WeakKeyDictionary()
        self._servers: list[Any] = []
        self._published = fingerprint(manager)

    def serve(self, server: Any) -> None:
        """Adds an SDK server whose listen streams (2026 era) hear of changes too."""
        self._servers.append(server)

    def listed(self, request: sdk.Request) -> None:
        """Records that the connection of `request` has just been shown the listing."""
        self._remember(sdk.connection(request), fingerprint(self._manager))

    def joined(self, request: sdk.Request) -> None:
        """Records a connection's first request, so a change made before it ever lists is still
        announced (the client may have cached an earlier listing of this server)."""
        link = sdk.connection(request)
        try:
            if link not in self._seen:
                self._seen[link] = fingerprint(self._manager)
        except TypeError:
            return

    def _remember(self, link: Any, current: Fingerprint) -> None:
        try:
            self._seen[link] = current
        except TypeError:
            logger.debug("connection %r cannot be tracked for list changes", link)

    async def resources_changed(self) -> None:
        """Announces `notifications/resources/list_changed` to every known connection, and to
        the listen streams of the 2026 era."""
        for server in self._servers:
            await sdk.publish_resources_changed(server)
        for link in list(self._seen):
            await self._tell(link, "send_resource_list_changed")

    async def check(self) -> None:
        """Announces a changed listing to every connection that has not seen it."""
        current = fingerprint(self._manager)
        if current != self._published:
            self._published = current
            for server in self._servers:
                await sdk.publish_tools_changed(server)
        stale = [link for link, seen in list(self._seen.items()) if seen != current]
        for link in stale:
            self._seen[link] = current
            await self._tell(link, "send_tool_list_changed")

    async def _tell(self, link: Any, send: str) -> None:
        try:
            with anyio.fail_after(5):
                await getattr(link, send)()
        except Exception as error:  # a closed connection cannot be told; forget it
            logger.debug("%s not delivered: %s", send, error)
            self._seen.pop(link, None)
