"""The session manager's table of open sessions, which gives each new session's transport its
own view of the event store and drops the session's events when it ends."""

from __future__ import annotations

from typing import Any

from orkestrel.mcp.session_events import SessionEvents
from orkestrel.mcp.types import EventStoreInterface


class ResumableSessions(dict[str, Any]):
    """Stands in for the SDK session manager's `{session id: transport}` table: a transport
    registered here keeps its session's events in `store`, apart from every other session's,
    and `events(id)` finds them again for a reconnecting request."""

    def __init__(self, store: EventStoreInterface) -> None:
        super().__init__()
        self.store = store
        self._views: dict[str, SessionEvents] = {}

    def __setitem__(self, session: str, transport: Any) -> None:
        view = SessionEvents(self.store, session)
        self._views[session] = view
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
        if self._views.pop(session, None) is not None:
            self.store.forget(session)
