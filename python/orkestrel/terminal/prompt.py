"""`Prompt`: the broker that parks live forms until someone answers them or they expire."""

from __future__ import annotations

import copy
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from orkestrel.form import FieldError, FormError, FormInterface, serialize_form
from orkestrel.form.validators import copy_values
from orkestrel.terminal.constants import DEFAULT_PROMPT_TIMEOUT_MS
from orkestrel.terminal.emitter import Emitter
from orkestrel.terminal.errors import TerminalError
from orkestrel.terminal.timers import default_timer
from orkestrel.terminal.types import AnswerResult, PendingForm, TimerCancel, TimerHandler
from orkestrel.terminal.validators import check_cap, check_timeout
from orkestrel.terminal.wire import json_text


@dataclass
class _Ticket:
    form: FormInterface
    record: PendingForm
    cancel: TimerCancel


class Prompt:
    """Represents a broker: `park` holds a live form under a fresh id until `answer` settles it,
    its timer expires it, or `stop` withdraws it.

    It emits `pending(record)` when a form parks, `answer(id, values)` when one is answered and
    `expire(id)` when one is withdrawn, on its `emitter`.
    """

    def __init__(
        self,
        *,
        timeout: int = DEFAULT_PROMPT_TIMEOUT_MS,
        timer: TimerHandler = default_timer,
        cap: int | None = None,
        max_bytes: int | None = None,
    ) -> None:
        self._timeout = check_timeout(timeout)
        if not callable(timer):
            raise ValueError(f"timer must be a callable (callback, ms) -> cancel, got {timer!r}")
        self._timer = timer
        self._cap = check_cap(cap)
        self._max_bytes = check_cap(max_bytes, "max_bytes")
        self._tickets: dict[str, _Ticket] = {}
        self._lock = threading.RLock()
        self._destroyed = False
        self._emitter = Emitter()

    @property
    def emitter(self) -> Emitter:
        """The hub the broker announces `pending`, `answer` and `expire` on."""
        return self._emitter

    @property
    def count(self) -> int:
        """How many forms are parked now."""
        return len(self._tickets)

    @property
    def destroyed(self) -> bool:
        """Whether `destroy` was called: the broker then refuses every park."""
        return self._destroyed

    @property
    def timeout(self) -> int:
        """How long a parked form waits before it expires, in milliseconds."""
        return self._timeout

    def park(self, form: FormInterface, *, source: str | None = None, to: str | None = None) -> str:
        """Parks a live form and returns its fresh id; the caller awaits `form.answer`.

        A destroyed broker destroys the form and raises `TerminalError` (`EXPIRE`); a broker at
        its `cap`, or a form whose schema is longer than `max_bytes` as JSON, destroys the form
        and raises `LIMIT`.
        """
        schema = serialize_form(form.schema)
        if self._max_bytes is not None:
            size = len(json_text(schema).encode("utf-8"))
            if size > self._max_bytes:
                form.destroy()
                raise TerminalError(
                    "LIMIT",
                    f"the form's schema is {size} bytes of JSON, over the terminal's limit of "
                    f"{self._max_bytes} (max_bytes)",
                    {"max_bytes": self._max_bytes, "bytes": size},
                )
        with self._lock:
            if self._destroyed:
                form.destroy()
                raise TerminalError("EXPIRE", "the terminal is destroyed and takes no more forms")
            if self._cap is not None and len(self._tickets) >= self._cap:
                form.destroy()
                raise TerminalError(
                    "LIMIT",
                    f"the terminal already holds {self._cap} forms, its limit (cap)",
                    {"cap": self._cap},
                )
            id = str(uuid.uuid4())
            record: PendingForm = {
                "id": id,
                "schema": schema,
                "status": "pending",
                "time": int(time.time() * 1000),
            }
            if source is not None:
                record["from"] = source
            if to is not None:
                record["to"] = to
            self._tickets[id] = _Ticket(form, record, _noop)
        cancel = self._timer(lambda: self._timed_out(id), self._timeout)
        with self._lock:
            ticket = self._tickets.get(id)
            if ticket is None:
                fired = True
            else:
                ticket.cancel, fired = cancel, False
        if fired:
            cancel()
        self._emitter.emit("pending", _copy(record))
        return id

    @overload
    def pending(self, id: None = None) -> list[PendingForm]: ...
    @overload
    def pending(self, id: str) -> PendingForm | None: ...
    def pending(self, id: str | None = None) -> list[PendingForm] | PendingForm | None:
        """Lists the records of every parked form, in parking order, or gives the one record
        of `id` (`None` when it is not parked)."""
        with self._lock:
            if id is not None:
                ticket = self._tickets.get(id)
                return None if ticket is None else _copy(ticket.record)
            return [_copy(ticket.record) for ticket in self._tickets.values()]

    def find(self, form: FormInterface) -> str | None:
        """Gives the id under which this very form object is parked, or `None`."""
        with self._lock:
            return next((id for id, ticket in self._tickets.items() if ticket.form is form), None)

    def answer(self, id: str, values: object) -> AnswerResult:
        """Fills `values` into the parked form of `id` and submits it; never raises.

        An id that is not parked gives reason `unknown`. A value the form refuses, or a submit
        that fails, gives reason `rejected` with every field error, and the form stays parked
        with the fills that fit. On success the timer is cancelled, `answer` is emitted and the
        record dropped.
        """
        with self._lock:
            ticket = self._tickets.get(id) if isinstance(id, str) else None
            if ticket is None:
                return {"success": False, "error": {"reason": "unknown"}}
            answers = copy_values(values)
            if answers is None:
                return _rejected([{"field": "", "message": "values must be a record of answers"}])
            try:
                errors: list[FieldError] = []
                for name, value in answers.items():
                    try:
                        ticket.form.fill(name, value)
                    except FormError as error:
                        reason = (error.context or {}).get("reason", error.message)
                        errors.append({"field": name, "message": f"The answer {reason}"})
                if errors:
                    return _rejected(errors)
                result = ticket.form.submit()
            except Exception:
                return _rejected([{"field": "", "message": "the answer could not be checked"}])
            if result["success"] is False:
                return _rejected(result["error"])
            settled = result["value"]
            del self._tickets[id]
            ticket.record["status"] = "answered"
        ticket.cancel()
        self._emitter.emit("answer", id, dict(settled))
        return {"success": True, "value": settled}

    def stop(
        self, ids: str | Sequence[str] | None = None, *, reason: BaseException | None = None
    ) -> int:
        """Withdraws parked forms (one id, a list of ids, or every form): each expires, its
        `answer` fails with `reason` (by default `FormError` `ABANDONED`), and `expire` is
        emitted. Answers how many were withdrawn."""
        if ids is None:
            with self._lock:
                chosen = list(self._tickets)
        else:
            chosen = [ids] if isinstance(ids, str) else list(ids)
        return self._expire(chosen, reason)

    def decline(self, id: str, message: str | None = None) -> bool:
        """Withdraws one parked form because the person refused it: it expires on the wire like
        `stop`, but its `answer` fails with `TerminalError` (`CANCEL`). Answers whether the
        form was parked."""
        text = message or f"the person declined form {id!r}"
        return self.stop(id, reason=TerminalError("CANCEL", text, {"id": id})) == 1

    def destroy(self) -> None:
        """Withdraws every parked form, then refuses further parks."""
        with self._lock:
            self._destroyed = True
        self.stop()

    def _timed_out(self, id: str) -> None:
        self._expire([id])

    def _expire(self, ids: list[str], reason: BaseException | None = None) -> int:
        done: list[_Ticket] = []
        with self._lock:
            for id in ids:
                ticket = self._tickets.pop(id, None) if isinstance(id, str) else None
                if ticket is not None:
                    ticket.record["status"] = "expired"
                    done.append(ticket)
        for ticket in done:
            ticket.cancel()
            ticket.form.destroy(reason)
            self._emitter.emit("expire", ticket.record["id"])
        return len(done)

    def __repr__(self) -> str:
        return f"<Prompt {len(self._tickets)} parked{', destroyed' if self._destroyed else ''}>"


def _noop() -> None:
    return None


def _rejected(errors: list[FieldError]) -> AnswerResult:
    return {"success": False, "error": {"reason": "rejected", "errors": list(errors)}}


def _copy(record: PendingForm) -> PendingForm:
    return copy.deepcopy(record)
