"""A ledger of the SQLite connections code opens, so a test can count the ones it left open.

From Python 3.13 a connection that is garbage-collected unclosed raises `ResourceWarning`; on
older versions nothing says so. The ledger holds every connection it saw, so none is collected
(and silently closed) before the test looks, and tells the ones no one closed, with the stack
that opened each, on every version.
"""

from __future__ import annotations

import sqlite3
import traceback
from typing import Any


class LedgerConnection(sqlite3.Connection):
    """A connection that remembers whether `close` was called and where it was opened."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shut = False
        self.origin = "".join(traceback.format_stack(limit=12)[:-2])

    def close(self) -> None:
        self.shut = True
        super().close()


class SQLiteLedger:
    """Records every connection `sqlite3.connect` makes while installed."""

    def __init__(self) -> None:
        self.connections: list[LedgerConnection] = []
        self._connect = sqlite3.connect

    def connect(self, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if "factory" in kwargs:
            return self._connect(*args, **kwargs)
        connection = self._connect(*args, factory=LedgerConnection, **kwargs)
        assert isinstance(connection, LedgerConnection)
        self.connections.append(connection)
        return connection

    def left_open(self) -> list[str]:
        """Where each connection still open was opened."""
        return [connection.origin for connection in self.connections if not connection.shut]

    def close_all(self) -> None:
        for connection in self.connections:
            if not connection.shut:
                connection.close()
