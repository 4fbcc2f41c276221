"""The statements the engines themselves run, on every connection opened while watched: SQLite's
trace callback, and libpq's trace of what a PostgreSQL connection sends the server."""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

KEPT = ("BEGIN", "COMMIT", "ROLLBACK", "SELECT", "INSERT", "UPDATE", "DELETE")
"""The statements `Statements.take` keeps: transaction control and data statements (not the
drivers' PRAGMAs and settings, nor a pool's empty liveness check)."""

_QUERY = re.compile(r'^F\t\d+\tQuery\t "(.*)"$')
_PARSE = re.compile(r'^F\t\d+\tParse\t "([^"]*)" "(.*)" \d+(?: NNNN)*$')
_BIND = re.compile(r'^F\t\d+\tBind\t "[^"]*" "([^"]*)"')
"""What libpq's trace shows of a statement run: a simple `Query`, or the `Bind` of an extended
one to the statement a `Parse` made (named where psycopg prepared it, run again by name)."""


class Statements:
    """Watches every SQLite and psycopg connection opened from `watch` on."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._sqlite: list[str] = []
        self._postgres: list[tuple[Any, int, list[int]]] = []
        self._parsed: dict[tuple[int, str], str] = {}
        self._opening = threading.Lock()
        self._opened = 0
        self._closed = False

    def watch(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Wraps `sqlite3.connect` and psycopg's `connect` (a pool's too) to trace what each
        connection they open runs."""
        connect = sqlite3.connect

        def sqlite_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
            connection = connect(*args, **kwargs)
            connection.set_trace_callback(self._sqlite.append)
            return connection

        monkeypatch.setattr(sqlite3, "connect", sqlite_connect)
        psycopg = pytest.importorskip("psycopg")
        opened = psycopg.Connection.connect

        def postgres_connect(*args: Any, **kwargs: Any) -> Any:
            connection = opened(*args, **kwargs)
            if self._closed:
                return connection
            # A pool opens its connections on worker threads at once: each must get a file of
            # its own, or two would write one file and `take` would read it twice.
            with self._opening:
                name, self._opened = f"libpq-{self._opened}.trace", self._opened + 1
                sink = os.open(
                    self._folder / name, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND
                )
                self._postgres.append((connection, sink, [0]))
            _trace(connection, sink)
            return connection

        monkeypatch.setattr(psycopg, "connect", postgres_connect)
        monkeypatch.setattr(psycopg.Connection, "connect", staticmethod(postgres_connect))

    def take(self) -> list[str]:
        """The statements run since the last `take`, of the kinds in `KEPT`: a transaction
        statement whole, any other by its first word."""
        texts, self._sqlite[:] = list(self._sqlite), []
        for connection, sink, read in list(self._postgres):
            live = not connection.closed
            if live:
                connection.pgconn.untrace()  # flushes what libpq buffered
            data = os.pread(sink, 1 << 24, read[0])
            read[0] += len(data)
            if live:
                _trace(connection, sink)
            texts += self._run(sink, data.decode(errors="replace"))
        return [_shape(text) for text in texts if text.split()[:1] and _kept(text)]

    def _run(self, sink: int, trace: str) -> list[str]:
        """The statements the lines of one connection's trace ran."""
        texts = []
        for line in trace.splitlines():
            if query := _QUERY.match(line):
                texts.append(query.group(1))
            elif parse := _PARSE.match(line):
                self._parsed[sink, parse.group(1)] = parse.group(2)
            elif bind := _BIND.match(line):
                texts.append(self._parsed[sink, bind.group(1)])
        return texts

    def close(self) -> None:
        """Stops tracing and closes the trace files; connections opened later go untraced."""
        self._closed = True
        for connection, sink, _ in self._postgres:
            if not connection.closed:
                connection.pgconn.untrace()
            os.close(sink)
        self._postgres.clear()


def _trace(connection: Any, sink: int) -> None:
    from psycopg import pq

    connection.pgconn.trace(sink)
    connection.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)


def _kept(text: str) -> bool:
    return text.split()[0].upper() in KEPT


def _shape(text: str) -> str:
    words = text.split()
    return " ".join(words).upper() if words[0].upper() in KEPT[:3] else words[0].upper()
