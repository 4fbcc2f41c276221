"""SQLite connections that say when no one closed them, on every Python version.

From Python 3.13 a connection that is garbage-collected unclosed raises `ResourceWarning`, which
the suite's `filterwarnings = error` turns into a failure; `warn_unclosed` makes older versions
do the same. A `SQLiteLedger` goes further for one test: it holds every connection it saw, so
none is collected (and silently closed) before the test looks, and tells the ones no one
closed, with the stack that opened each.
"""

from __future__ import annotations

import sqlite3
import sys
import traceback
import warnings
from typing import Any


class WarningConnection(sqlite3.Connection):
    """A connection that remembers whether `close` was called, and warns as Python 3.13 does
    when it is collected unclosed."""

    shut = True  # until the connection is open

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shut = False

    def close(self) -> None:
        self.shut = True
        super().close()

    def __del__(self) -> None:
        if not self.shut:
            warnings.warn(f"unclosed database in {self!r}", ResourceWarning, stacklevel=1)


def warn_unclosed() -> None:
    """Makes `sqlite3.connect` open `WarningConnection`s (unless given a factory) where the
    interpreter does not warn by itself, before 3.13."""
    if sys.version_info >= (3, 13):
        return
    connect = sqlite3.connect

    def warned(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.setdefault("factory", WarningConnection)
        return connect(*args, **kwargs)

    sqlite3.connect = warned


class LedgerConnection(WarningConnection):
    """A connection that also remembers where it was opened."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.origin = "".join(traceback.format_stack(limit=12)[:-2])


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
