"""Terminals: named endpoints that park live forms until someone answers them.

    manager = create_terminal_manager()
    manager.add("reviewer")
    answer = manager.ask("agent", "reviewer", create_form(schema))   # parks now
    [record] = manager.pending("reviewer")                           # {id, schema, from, to, ...}
    manager.answer("reviewer", record["id"], {"approved": True})     # {"success": True, ...}
    await answer                                                     # the settled values

A prompt that would close a cycle of terminals waiting on each other is refused (`DEADLOCK`),
and a form nobody answers expires. `encode_event` and `SSEParser` are the wire seam, and
`PromptClient` answers a terminal over HTTP.
"""

from orkestrel.terminal.client import PromptClient
from orkestrel.terminal.constants import (
    DEFAULT_PROMPT_TIMEOUT_MS,
    DEFAULT_RECONNECT_MS,
    HEADER_TOKEN,
    KEEPALIVE_FRAME,
    SSE_BUFFER_LIMIT,
    SSE_EVENTS,
)
from orkestrel.terminal.emitter import Emitter
from orkestrel.terminal.errors import (
    TERMINAL_ERROR_CODES,
    TerminalError,
    TerminalErrorCode,
    is_terminal_error,
)
from orkestrel.terminal.factories import (
    create_prompt,
    create_prompt_client,
    create_terminal_manager,
)
from orkestrel.terminal.manager import TerminalManager
from orkestrel.terminal.prompt import Prompt
from orkestrel.terminal.timers import default_timer
from orkestrel.terminal.types import (
    AnswerError,
    AnswerFailure,
    AnswerResult,
    AnswerSuccess,
    EmitterInterface,
    Listener,
    PendingForm,
    PendingFormStatus,
    PromptInterface,
    RejectedAnswer,
    TargetAnswer,
    TerminalAnswerError,
    TerminalInterface,
    TerminalManagerInterface,
    TimerCancel,
    TimerHandler,
    UnknownAnswer,
    WireEvent,
)
from orkestrel.terminal.wire import (
    SSEParser,
    encode_event,
    json_text,
    serialize_expire,
    serialize_pending,
    serialize_shutdown,
)

__all__ = [
    "DEFAULT_PROMPT_TIMEOUT_MS",
    "DEFAULT_RECONNECT_MS",
    "HEADER_TOKEN",
    "KEEPALIVE_FRAME",
    "SSE_BUFFER_LIMIT",
    "SSE_EVENTS",
    "TERMINAL_ERROR_CODES",
    "AnswerError",
    "AnswerFailure",
    "AnswerResult",
    "AnswerSuccess",
    "Emitter",
    "EmitterInterface",
    "Listener",
    "PendingForm",
    "PendingFormStatus",
    "Prompt",
    "PromptClient",
    "PromptInterface",
    "RejectedAnswer",
    "SSEParser",
    "TargetAnswer",
    "TerminalAnswerError",
    "TerminalError",
    "TerminalErrorCode",
    "TerminalInterface",
    "TerminalManager",
    "TerminalManagerInterface",
    "TimerCancel",
    "TimerHandler",
    "UnknownAnswer",
    "WireEvent",
    "create_prompt",
    "create_prompt_client",
    "create_terminal_manager",
    "default_timer",
    "encode_event",
    "is_terminal_error",
    "json_text",
    "serialize_expire",
    "serialize_pending",
    "serialize_shutdown",
]
