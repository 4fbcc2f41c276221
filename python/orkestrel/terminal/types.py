"""The records and interfaces of the terminal layer: parked forms, answers, timers, brokers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    NotRequired,
    Protocol,
    TypeAlias,
    TypedDict,
    overload,
)

from orkestrel.form import FieldError, FormInterface, FormValues

if TYPE_CHECKING:
    import httpx

PendingFormStatus = Literal["pending", "answered", "expired"]
"""Represents where a parked form's ticket is: waiting, answered, or withdrawn."""

PendingForm = TypedDict(
    "PendingForm",
    {
        "id": str,
        "schema": dict[str, Any],
        "status": PendingFormStatus,
        "time": int,
        "from": NotRequired[str],
        "to": NotRequired[str],
    },
)
PendingForm.__doc__ = """Represents the wire record of a parked form: its id, serialized schema,
ticket status, when it was parked (milliseconds since the epoch), and who asked whom."""


class UnknownAnswer(TypedDict):
    """Represents an answer to an id that is not parked (never was, answered, or expired)."""

    reason: Literal["unknown"]


class RejectedAnswer(TypedDict):
    """Represents an answer the form refused, with every field error; the form stays parked."""

    reason: Literal["rejected"]
    errors: list[FieldError]


class TargetAnswer(TypedDict):
    """Represents an answer addressed to a terminal the manager has not mounted."""

    reason: Literal["target"]


AnswerError: TypeAlias = UnknownAnswer | RejectedAnswer
"""Represents why a broker refused an answer: `unknown` or `rejected`."""

TerminalAnswerError: TypeAlias = UnknownAnswer | RejectedAnswer | TargetAnswer
"""Represents why a manager refused an answer: the broker's reasons, or `target`."""


class AnswerSuccess(TypedDict):
    """Represents an accepted answer, carrying the settled values."""

    success: Literal[True]
    value: FormValues


class AnswerFailure(TypedDict):
    """Represents a refused answer, carrying why."""

    success: Literal[False]
    error: TerminalAnswerError


AnswerResult: TypeAlias = AnswerSuccess | AnswerFailure
"""Represents what answering a parked form gives: the values, or why it was refused."""

TimerCancel: TypeAlias = Callable[[], None]
"""Represents the cancel function a timer returns: idempotent, and safe after it fired."""

TimerHandler: TypeAlias = Callable[[Callable[[], None], int], TimerCancel]
"""Represents a timer: `(callback, ms) -> cancel`, running `callback` once after `ms`."""

Listener: TypeAlias = Callable[..., object]
"""Represents an `Emitter` listener: called with the event's arguments."""


class WireEvent(TypedDict):
    """Represents one server-sent event: its name, its data text and, for `pending`, its id."""

    event: str
    data: str
    id: NotRequired[str]


class EmitterInterface(Protocol):
    """Represents a synchronous event hub: listeners run in registration order, and one that
    raises is logged without stopping the others."""

    def on(self, event: str, listener: Listener) -> None: ...
    def off(self, event: str, listener: Listener) -> None: ...
    def emit(self, event: str, *args: Any) -> None: ...
    def count(self, event: str | None = None) -> int: ...


class _HubInterface(Protocol):
    """What a broker and a manager both expose: the emitter they announce on, how many forms
    or terminals they hold, and whether they are destroyed."""

    @property
    def emitter(self) -> EmitterInterface: ...
    @property
    def count(self) -> int: ...
    @property
    def destroyed(self) -> bool: ...


class PromptInterface(_HubInterface, Protocol):
    """Represents a broker that parks live forms until someone answers or they expire."""

    def park(
        self, form: FormInterface, *, source: str | None = None, to: str | None = None
    ) -> str: ...
    @overload
    def pending(self, id: None = None) -> list[PendingForm]: ...
    @overload
    def pending(self, id: str) -> PendingForm | None: ...
    def find(self, form: FormInterface) -> str | None: ...
    def answer(self, id: str, values: object) -> AnswerResult: ...
    def stop(
        self, ids: str | Sequence[str] | None = None, *, reason: BaseException | None = None
    ) -> int: ...
    def decline(self, id: str, message: str | None = None) -> bool: ...
    def destroy(self) -> None: ...


class TerminalManagerInterface(_HubInterface, Protocol):
    """Represents a registry of named terminals that routes forms between them."""

    def add(
        self,
        name: str,
        *,
        timeout: int | None = None,
        timer: TimerHandler | None = None,
        cap: int | None = None,
    ) -> PromptInterface: ...
    def terminal(self, name: str) -> PromptInterface | None: ...
    def terminals(self) -> list[str]: ...
    def ask(self, from_: str, to: str, form: FormInterface) -> Awaitable[FormValues]: ...
    def pending(self, to: str | None = None) -> list[PendingForm]: ...
    def answer(self, to: str, id: str, values: object) -> AnswerResult: ...
    def remove(self, names: str | Sequence[str] | None = None) -> int: ...
    def destroy(self) -> None: ...


class TerminalInterface(Protocol):
    """Represents whatever puts a local form before a person (a console, a window, a script):
    `ask` returns once the person submitted the form or gave up on it."""

    def ask(self, form: FormInterface) -> Awaitable[object]: ...


class PromptOptions(TypedDict, total=False):
    """What `create_prompt` takes: the arguments of `Prompt`, whose defaults apply."""

    timeout: int
    timer: TimerHandler
    cap: int | None
    max_bytes: int | None


class TerminalManagerOptions(TypedDict, total=False):
    """What `create_terminal_manager` takes: the arguments of `TerminalManager`, whose defaults
    apply."""

    timeout: int | None
    timer: TimerHandler | None
    cap: int | None
    max_bytes: int | None


class PromptClientOptions(TypedDict):
    """What `create_prompt_client` takes: the arguments of `PromptClient`, whose defaults
    apply."""

    url: str
    terminal: TerminalInterface
    token: NotRequired[str | None]
    reconnect: NotRequired[bool]
    delay: NotRequired[int]
    client: NotRequired[httpx.AsyncClient | None]
