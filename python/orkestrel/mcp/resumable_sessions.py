"""The session manager's table of open sessions, which records who opened each session, gives
each new session's transport its own view of the event store and drops the session's events
when it ends."""

from __future__ import annotations

import contextlib
import hmac
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from orkestrel.mcp.session_events import SessionEvents
from orkestrel.mcp.types import EventStoreInterface

_OPENER: ContextVar[str] = ContextVar("orkestrel_session_opener", default="")
"""The owner of the request being served (see `ResumableSessions.opening`); a session opened
outside `opening` belongs to no one, so no request can use it."""


def session_key(owner: str, session: str) -> str:
    """What a session's events are kept under: its owner, then its id (the MCP security best
    practices' `<user_id>:<session_id>`), so one owner's `Last-Event-ID` never names another's
    event, on any server of a durable store."""
    return f"{owner}:{session}"


class ResumableSessions(dict[str, Any]):
    """Stands in for the SDK session manager's `{session id: transport}` table: a transport
    registered here belongs to the owner of the request that opened it (see `opening`), and
    keeps its session's events in `store`, apart from every other session's; `events(id)`
    finds them again for a reconnecting request, and `foreign(id, owner)` tells a request of
    another owner."""

    def __init__(self, store: EventStoreInterface) -> None:
        super().__init__()
        self.store = store
        self._views: dict[str, SessionEvents] = {}
        self._owners: dict[str, str] = {}

    @contextlib.contextmanager
    def opening(self, owner: str) -> Iterator[None]:
        """Serves the request within as `owner`'s (a digest of its principal): a session it
        opens is theirs."""
        token = _OPENER.set(owner)
        try:
            yield
        finally:
            _OPENER.reset(token)

    def foreign(self, session: str, owner: str) -> bool:
        """Whether `session` is open here and belongs to another owner than `owner`."""
        held = self._owners.get(session)
        return held is not None and not hmac.compare_digest(held, owner)

    def __setitem__(self, session: str, transport: Any) -> None:
        # The SDK registers the session in the task of the request that opens it.
        owner = _OPENER.get()
        view = SessionEvents(self.store, session_key(owner, session))
        self._views[session] = view
        self._owners[session] = owner
        # The transport's own attribute: the SDK gives every session the manager's one store.
        transport._event_store = view
        super().__setitem__(session, transport)

    def pop(self, session: str, *default: Any) -> Any:
        self._end(session)
        return super().pop(session, *default)

    def __delitem__(self, session: str) -> None:
        self._end(session)
        super().__delitem__(session)

    def clear(self) -> None:
        for session in list(self):
            self._end(session)
        super().clear()

    def events(self, session: str) -> SessionEvents | None:
        """The events of the open session `session`, or `None` when none is open."""
        return self._views.get(session)

    def _end(self, session: str) -> None:
        self._owners.pop(session, None)
        view = self._views.pop(session, None)
        if view is not None:
            self.store.forget(view.session)
