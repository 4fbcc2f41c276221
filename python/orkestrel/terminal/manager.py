"""`TerminalManager`: named terminals, and the forms asked between them."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from orkestrel.form import Deferred, FormInterface, FormValues
from orkestrel.terminal.constants import DEFAULT_PROMPT_TIMEOUT_MS
from orkestrel.terminal.emitter import Emitter
from orkestrel.terminal.errors import TerminalError
from orkestrel.terminal.prompt import Prompt
from orkestrel.terminal.timers import default_timer
from orkestrel.terminal.types import AnswerResult, PendingForm, TimerHandler
from orkestrel.terminal.validators import check_cap, check_name, check_timeout


@dataclass
class _Endpoint:
    prompt: Prompt
    listeners: list[tuple[str, Any]]


class TerminalManager:
    """Represents a registry of named terminals, each a `Prompt` broker, that routes a form
    asked by one terminal to another and refuses an ask that would close a waiting cycle.

    Its `emitter` re-announces every broker's events by terminal name: `pending(record)` (the
    record names `to`), `answer(to, id, values)`, `expire(to, id)`, and `destroy()` once the
    manager is destroyed.
    """

    def __init__(
        self,
        *,
        timeout: int | None = None,
        timer: TimerHandler | None = None,
        cap: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self._timeout = check_timeout(DEFAULT_PROMPT_TIMEOUT_MS if timeout is None else timeout)
        self._timer = timer if timer is not None else default_timer
        self._cap = check_cap(cap)
        self._max_bytes = check_cap(max_bytes, "max_bytes")
        self._endpoints: dict[str, _Endpoint] = {}
        self._edges: dict[str, tuple[str, str]] = {}
        self._lock = threading.RLock()
        self._destroyed = False
        self._emitter = Emitter()

    @property
    def emitter(self) -> Emitter:
        """The hub the manager announces `pending`, `answer`, `expire` and `destroy` on."""
        return self._emitter

    @property
    def count(self) -> int:
        """How many terminals are mounted."""
        return len(self._endpoints)

    @property
    def destroyed(self) -> bool:
        """Whether `destroy` was called: the manager then refuses new terminals."""
        return self._destroyed

    def add(
        self,
        name: str,
        *,
        timeout: int | None = None,
        timer: TimerHandler | None = None,
        cap: int | None = None,
    ) -> Prompt:
        """Mounts a terminal and returns its broker; a name already mounted returns the existing
        broker unchanged. After `destroy` it raises `TerminalError` (`DESTROYED`)."""
        check_name(name)
        with self._lock:
            if self._destroyed:
                raise TerminalError("DESTROYED", "the terminal manager is destroyed")
            found = self._endpoints.get(name)
            if found is not None:
                return found.prompt
            prompt = Prompt(
                timeout=self._timeout if timeout is None else timeout,
                timer=timer if timer is not None else self._timer,
                cap=self._cap if cap is None else cap,
                max_bytes=self._max_bytes,
            )
            listeners: list[tuple[str, Any]] = [
                ("pending", lambda record: self._emitter.emit("pending", record)),
                ("answer", lambda id, values: self._settled("answer", name, id, values)),
                ("expire", lambda id: self._settled("expire", name, id)),
            ]
            for event, listener in listeners:
                prompt.emitter.on(event, listener)
            self._endpoints[name] = _Endpoint(prompt, listeners)
            return prompt

    def terminal(self, name: str) -> Prompt | None:
        """Gives the broker mounted under `name`, or `None`."""
        found = self._endpoints.get(name) if isinstance(name, str) else None
        return None if found is None else found.prompt

    def terminals(self) -> list[str]:
        """Lists the mounted terminal names, in the order they were added."""
        return list(self._endpoints)

    def ask(self, from_: str, to: str, form: FormInterface) -> Deferred[FormValues]:
        """Parks `form` on terminal `to` on behalf of `from_` and returns its `answer`, which
        resolves with the settled values.

        Parking happens now: an unmounted `to` raises `TerminalError` (`TARGET`), and an ask
        that would close a cycle of terminals waiting on each other raises `DEADLOCK` with the
        cycle in `context["path"]`; neither parks anything.
        """
        with self._lock:
            endpoint = self._endpoints.get(to) if isinstance(to, str) else None
            if endpoint is None:
                known = self.terminals()
                listed = ", ".join(known) or "none"
                raise TerminalError(
                    "TARGET",
                    f"unknown terminal {to!r} (known: {listed})",
                    {"to": to, "known": known},
                )
            path = self._cycle(from_, to)
            if path is not None:
                raise TerminalError(
                    "DEADLOCK",
                    f"ask {from_} -> {to} would deadlock: {' -> '.join(path)}",
                    {"from": from_, "to": to, "path": path},
                )
            id = endpoint.prompt.park(form, source=from_, to=to)
            if endpoint.prompt.pending(id) is not None:
                self._edges[id] = (from_, to)
        return form.answer

    def pending(self, to: str | None = None) -> list[PendingForm]:
        """Lists the parked forms of one terminal (`[]` when it is not mounted), or of all."""
        if to is not None:
            prompt = self.terminal(to)
            return [] if prompt is None else prompt.pending()
        return [record for name in self.terminals() for record in self._pending_of(name)]

    def answer(self, to: str, id: str, values: object) -> AnswerResult:
        """Answers a form parked on terminal `to`: the broker's result, or reason `target`
        when `to` is not mounted; never raises."""
        prompt = self.terminal(to)
        if prompt is None:
            return {"success": False, "error": {"reason": "target"}}
        return prompt.answer(id, values)

    def remove(self, names: str | Sequence[str] | None = None) -> int:
        """Unmounts terminals (one name, a list, or all): each broker is destroyed first, so its
        parked forms expire through the manager's listeners, then detached. Answers how many
        were removed."""
        with self._lock:
            if names is None:
                chosen = self.terminals()
            else:
                chosen = [names] if isinstance(names, str) else list(names)
            removed = [(n, self._endpoints[n]) for n in chosen if n in self._endpoints]
        for name, endpoint in removed:
            endpoint.prompt.destroy()
            for event, listener in endpoint.listeners:
                endpoint.prompt.emitter.off(event, listener)
            with self._lock:
                self._endpoints.pop(name, None)
        return len(removed)

    def destroy(self) -> None:
        """Removes every terminal, refuses new ones, and emits `destroy`; calling it again does
        nothing."""
        with self._lock:
            if self._destroyed:
                return
            self._destroyed = True
        self.remove()
        with self._lock:
            self._edges.clear()
        self._emitter.emit("destroy")

    def _pending_of(self, name: str) -> list[PendingForm]:
        prompt = self.terminal(name)
        return [] if prompt is None else prompt.pending()

    def _settled(self, event: str, to: str, id: str, *rest: Any) -> None:
        with self._lock:
            self._edges.pop(id, None)
        self._emitter.emit(event, to, id, *rest)

    def _cycle(self, from_: str, to: str) -> list[str] | None:
        if from_ == to:
            return [from_, to]
        waits: dict[str, list[str]] = {}
        for asker, asked in self._edges.values():
            waits.setdefault(asker, []).append(asked)
        parents: dict[str, str] = {}
        queue = deque([to])
        seen = {to}
        while queue:
            current = queue.popleft()
            for nxt in waits.get(current, []):
                if nxt in seen:
                    continue
                parents[nxt] = current
                if nxt == from_:
                    path = [from_]
                    while path[-1] != to:
                        path.append(parents[path[-1]])
                    return [from_, *reversed(path)]
                seen.add(nxt)
                queue.append(nxt)
        return None

    def __repr__(self) -> str:
        return f"<TerminalManager {self.terminals()}>"
