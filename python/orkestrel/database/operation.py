"""One unit of database work in flight: whether it has started, whether it has been asked to
stop, and the watchdog that interrupts its running statement until it does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, TypeVar

import anyio

from orkestrel.abort import AbortSignal
from orkestrel.abort.loop import loop_caller
from orkestrel.database.errors import DatabaseError

INTERRUPT_INTERVAL = 0.02
"""Seconds between two interrupts of a statement that has not stopped yet."""

Stage = Literal["pending", "running", "done"]

T = TypeVar("T")


class Replayable(Generic[T]):
    """Marks a unit of work that touches nothing but its transaction: a driver may roll it
    back part-way and run it again, so it may first try it on the calling thread."""

    __slots__ = ("work",)

    def __init__(self, work: Callable[[Any], T]) -> None:
        self.work = work

    def __call__(self, session: Any) -> T:
        return self.work(session)


class LoneRead(Replayable[T]):
    """Marks replayable work that runs exactly one statement, a read: on a connection in
    autocommit mode that statement is a transaction of its own, so a driver may run it without
    BEGIN and COMMIT (two more statements; on PostgreSQL, two more round trips).

    The work is `shape(session.rows(sql, params))`; a driver that can await the statement
    itself (PostgreSQL on the event loop) runs `sql` and hands its rows to `shape`.
    """

    __slots__ = ("params", "shape", "sql")

    def __init__(
        self, sql: str, params: Sequence[Any], shape: Callable[[list[tuple[Any, ...]]], T]
    ) -> None:
        super().__init__(lambda session: shape(session.rows(sql, params)))
        self.sql = sql
        self.params = params
        self.shape = shape


class Operation:
    """Tracks one unit of work through three stages: `pending` until its worker thread holds
    the connection, `running` while it uses it, `done` once it has let go of it.

    An abort (from the signal, or from the awaiting task being cancelled) of running work
    starts a watchdog thread that calls `interrupt` every `INTERRUPT_INTERVAL` seconds until
    the work is done. Repeating matters: an interrupt that lands between two statements is
    forgotten by the engine, and the next statement must still be stopped. Pending work that
    is abandoned is done at once: it never touches the connection, whether or not its worker
    thread ever starts.
    """

    __slots__ = (
        "_done",
        "_lock",
        "_notify",
        "_signal",
        "_stage",
        "_watchdog",
        "aborted",
        "interrupt",
    )

    def __init__(self, signal: AbortSignal | None, interrupt: Callable[[Operation], None]) -> None:
        self._signal = signal
        self._lock = threading.Lock()
        self._watchdog: threading.Thread | None = None
        self._stage: Stage = "pending"
        # Made with the watchdog, the only one that waits on it: most work never needs one.
        self._done: threading.Event | None = None
        self._notify: Callable[[], None] | None = None
        self.aborted = False
        self.interrupt = interrupt

    @property
    def stage(self) -> Stage:
        """Where the work is: `pending`, `running` or `done`."""
        return self._stage

    def begin(self) -> bool:
        """Moves pending work to running, from the worker thread that now holds the connection;
        `False` (and done) when it was aborted first, so it must not touch the connection.
        """
        with self._lock:
            if self.aborted or self._stage != "pending":
                self._finish()
                return False
            self._stage = "running"
        return True

    def attach(self) -> None:
        """Starts listening to the signal; an already aborted signal aborts at once."""
        if self._signal is not None:
            self._signal.add_listener(self.abort)
            if self._signal.aborted:
                self.abort()

    def detach(self) -> None:
        """Stops listening and marks the work done, which ends the watchdog and wakes a caller
        waiting in `settle`.
        """
        if self._signal is not None:
            self._signal.remove_listener(self.abort)
        with self._lock:
            self._finish()
            notify, self._notify = self._notify, None
        if notify is not None:
            notify()

    def abort(self) -> None:
        """Marks the work aborted; running work gets the interrupting watchdog, once."""
        with self._lock:
            self.aborted = True
            if self._stage == "pending":
                self._finish()
                return
            if self._watchdog is not None or self._stage == "done":
                return
            self._done = threading.Event()
            self._watchdog = threading.Thread(
                target=self._watch,
                args=(self._done,),
                name="orkestrel.database.interrupt",
                daemon=True,
            )
        self._watchdog.start()

    async def settle(self) -> None:
        """Aborts the work and returns once it no longer holds the connection: at once when it
        had not started, after its statement is interrupted and rolled back when it had.

        The wait needs no thread: the worker wakes it through the event loop.
        """
        self.abort()
        event = anyio.Event()
        call = loop_caller()
        with self._lock:
            if self._stage == "done":
                return
            self._notify = lambda: call(event.set)
        await event.wait()

    def check(self) -> None:
        """Raises `DatabaseError` coded `ABORTED` once the work has been aborted."""
        if self.aborted:
            raise aborted_error()

    def _finish(self) -> None:
        self._stage = "done"
        if self._done is not None:
            self._done.set()

    def _watch(self, done: threading.Event) -> None:
        while not done.is_set():
            self.interrupt(self)
            if done.wait(INTERRUPT_INTERVAL):
                return


def aborted_error() -> DatabaseError:
    """Builds the error an aborted call raises; its work was rolled back."""
    return DatabaseError("ABORTED", "the database call was aborted and rolled back")
