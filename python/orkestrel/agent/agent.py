"""`Agent`: a provider and a context, run as a bounded loop of model turns and tool calls."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import anyio

from orkestrel.abort import AbortController, AbortError, AbortSignal, is_abort_signal
from orkestrel.agent.constants import (
    ABORT_GRACE,
    AGENT_MAX_CALLS,
    AGENT_MAX_CONTEXT,
    DEFAULT_AGENT_LIMIT,
)
from orkestrel.agent.context import AgentContext
from orkestrel.agent.errors import AgentError
from orkestrel.agent.helpers import (
    add_usage,
    check_provider_result,
    close_stream,
    encode_answer,
    grace_scope,
    message_size,
)
from orkestrel.agent.types import (
    AgentBudgetInterface,
    AgentContextInterface,
    AgentResult,
    AgentStatus,
    ConversationManagerInterface,
    Message,
    MessageInput,
    ProviderInterface,
    ProviderResult,
    TokenUsage,
)
from orkestrel.timeout import create_timeout, is_timeout_duration
from orkestrel.tool import ToolCall, ToolDefinition, ToolManagerInterface

NOTICE_ROOM = 256
"""The characters kept free for each tool answer still to come, so that the notices replacing
answers that do not fit keep the conversation within `max_context`; from the first answer that
does not fit on, every answer of the turn is replaced."""

CANCELLED_ANSWER = "the run was cancelled before the tool answered"
"""Holds the failure text a tool message carries when the run stopped while its call ran."""


class _Turn:
    """What one provider turn streamed before it ended or was cut short."""

    __slots__ = ("content", "partial", "thinking")

    def __init__(self) -> None:
        self.content: list[str] = []
        self.thinking: list[str] = []
        self.partial: Any = None


def _check_limit(limit: Any, name: str = "limit", least: int = 0) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < least:
        rule = "a non-negative" if least == 0 else "a positive"
        raise ValueError(f"{name} must be {rule} integer, got {limit!r}")
    return limit


def _dropped(call: ToolCall, made: int, cap: int) -> MessageInput:
    """The answer to the first call past `max_calls`, standing for every dropped call."""
    text = (
        f"not run: this turn made {made} tool calls, over the agent's max_calls limit of {cap} "
        f"per turn; the first {cap} ran and the other {made - cap} were dropped"
    )
    return {"role": "tool", "content": text, "call": call["id"], "error": True}


class Agent:
    """Runs a provider over a context as a bounded loop: each turn the model sees the prompt and
    the tools, its tool calls run through the context's `ToolManager` and their answers are fed
    back, until it answers without tools or `limit` turns have passed.

    Bounds: a turn's tool calls past `max_calls` are dropped (the model is told, in the answer
    to the first dropped call); a tool answer that would take the conversation past
    `max_context` characters is replaced by a notice saying so; a conversation already past it
    is not sent and the run raises `AgentError` (`LIMIT`). With a `budget`, every model request
    is admitted by it first, so a delegation tree sharing one stops at its `max_requests`.

    One run at a time: a second `generate` while one is in flight raises `AgentError`
    (`CONCURRENCY`). A run stopped by a signal, `abort()` or the timeout settles as a partial
    result, keeping the text streamed so far; only genuine failures raise.
    """

    __slots__ = (
        "_budget",
        "_calls",
        "_context",
        "_controller",
        "_id",
        "_limit",
        "_provider",
        "_signal",
        "_size",
        "_status",
        "_timeout",
    )

    def __init__(
        self,
        provider: ProviderInterface,
        *,
        id: str | None = None,
        context: AgentContextInterface | None = None,
        system: str | None = None,
        tools: ToolManagerInterface | None = None,
        conversations: ConversationManagerInterface | None = None,
        limit: int = DEFAULT_AGENT_LIMIT,
        timeout: int | float | None = None,
        signal: AbortSignal | None = None,
        budget: AgentBudgetInterface | None = None,
        max_calls: int = AGENT_MAX_CALLS,
        max_context: int = AGENT_MAX_CONTEXT,
    ) -> None:
        if not callable(getattr(provider, "generate", None)):
            raise TypeError("provider must have a generate method")
        if context is not None and (
            system is not None or tools is not None or conversations is not None
        ):
            raise TypeError("pass either a context or system, tools and conversations, not both")
        if timeout is not None and (not is_timeout_duration(timeout) or timeout == 0):
            raise ValueError(f"timeout must be a positive whole number of ms, got {timeout!r}")
        if signal is not None and not is_abort_signal(signal):
            raise TypeError("signal must be an AbortSignal")
        if budget is not None and not callable(getattr(budget, "admit_request", None)):
            raise TypeError("budget must have an admit_request method")
        self._provider = provider
        self._id = id if id is not None else uuid.uuid4().hex
        self._context: AgentContextInterface = (
            context
            if context is not None
            else AgentContext(system=system, tools=tools, conversations=conversations)
        )
        self._limit = _check_limit(limit)
        self._calls = _check_limit(max_calls, "max_calls", 1)
        self._size = _check_limit(max_context, "max_context", 1)
        self._budget = budget
        self._timeout = timeout
        self._signal = signal
        self._status: AgentStatus = "idle"
        self._controller: AbortController | None = None

    @property
    def id(self) -> str:
        """The agent's id: the given one, or a random hex UUID."""
        return self._id

    @property
    def status(self) -> AgentStatus:
        """Where the agent is: `idle`, `running`, `done` or `error`."""
        return self._status

    @property
    def context(self) -> AgentContextInterface:
        """The instructions, tools and conversations the agent works with."""
        return self._context

    @property
    def provider(self) -> ProviderInterface:
        """The provider every turn goes to."""
        return self._provider

    @property
    def limit(self) -> int:
        """How many provider turns one run may take."""
        return self._limit

    async def generate(
        self,
        *,
        signal: AbortSignal | None = None,
        think: bool | None = None,
        progress: Callable[[int, int, str], Awaitable[None]] | None = None,
    ) -> AgentResult:
        """Runs the loop once over the active conversation and returns how it settled.

        `signal` stops this run only; the agent's own signal, `abort()` and `timeout` stop it
        too. A stopped run returns `partial=True` with the text of the turn it was in; running
        out of turns while the model still calls tools is partial as well. `think` is passed to
        the provider. The status is `running` from the first instruction, `done` once the run
        settles and `error` when it raises. `progress` is awaited with `(turn, limit, message)`
        after each model turn and each tool call it made, and with `(limit, limit, ...)` when
        the model answers.
        """
        if self._controller is not None:
            raise AgentError(
                "CONCURRENCY", f"agent '{self._id}' is already running", {"agent": self._id}
            )
        if signal is not None and not is_abort_signal(signal):
            raise TypeError("signal must be an AbortSignal")
        controller = AbortController()
        self._controller = controller
        self._status = "running"
        unlink: list[Callable[[], None]] = []
        timer = None
        try:
            for source in (self._signal, signal):
                if source is not None:
                    unlink.append(_forward(source, controller))
            if self._timeout is not None:
                timer = create_timeout(ms=self._timeout)
                unlink.append(_forward(timer.signal, controller))
                timer.start()
            result = await self._run(controller.signal, think, progress)
        except BaseException:
            self._status = "error"
            raise
        finally:
            for undo in unlink:
                undo()
            if timer is not None:
                timer.clear()
            self._controller = None
        self._status = "done"
        return result

    def abort(self, reason: object = None) -> None:
        """Stops the run in flight, which then settles as a partial result; with none in flight
        it does nothing.
        """
        if self._controller is not None:
            self._controller.abort(reason)

    async def _run(
        self,
        signal: AbortSignal,
        think: bool | None,
        progress: Callable[[int, int, str], Awaitable[None]] | None,
    ) -> AgentResult:
        conversation = self._context.messages
        working = self._context.build()
        thinking: list[str] = []
        usage: TokenUsage | None = None
        content = ""
        size = sum(message_size(message) for message in working)
        for step in range(1, self._limit + 1):
            if signal.aborted:
                return AgentResult(content="", partial=True, thinking=_join(thinking), usage=usage)
            if size > self._size:
                raise AgentError(
                    "LIMIT",
                    f"conversation not sent: it holds {size} characters, over the agent's "
                    f"max_context limit of {self._size}",
                    {"limit": "max_context", "max": self._size, "size": size},
                )
            if self._budget is not None:
                self._budget.admit_request()
            turn = _Turn()
            answer: ProviderResult | None = None
            try:
                with grace_scope(signal, ABORT_GRACE):
                    answer = await self._ask(working, signal, self._definitions(), think, turn)
            except AbortError as error:
                if not signal.aborted:
                    raise
                turn.partial = getattr(error, "partial", None)
            if answer is None:
                return self._settle_partial(conversation, turn, thinking, usage)
            result = check_provider_result(answer)
            if "thinking" in result:
                thinking.append(result["thinking"])
            usage = add_usage(usage, result.get("usage"))
            content = result["content"]
            made = result.get("tools", [])
            calls = made[: self._calls + 1]
            entry: MessageInput = {"role": "assistant", "content": content}
            if calls:
                entry["calls"] = calls
            working.append(conversation.add(entry))
            size += message_size(working[-1])
            if not calls:
                if progress is not None:
                    await progress(self._limit, self._limit, f"turn {step}: the model answered")
                return AgentResult(content, False, _join(thinking), usage)
            if progress is not None:
                named = ", ".join(call["name"] for call in calls[: self._calls])
                await progress(step, self._limit, f"turn {step}: the model called {named}")
            made_answers = await self._call_tools(calls[: self._calls], signal)
            if progress is not None:
                for call, told in zip(calls, made_answers, strict=False):
                    how = "failed" if told.get("error") else "answered"
                    told_line = f"turn {step}: tool '{call['name']}' {how}"
                    await progress(step, self._limit, told_line)
            answers = self._fit(made_answers, size, len(calls))
            if len(made) > self._calls:
                answers.append(_dropped(calls[-1], len(made), self._calls))
            for message in answers:
                size += message_size(message)
                working.append(conversation.add(message))
            if signal.aborted:
                return AgentResult(content, True, _join(thinking), usage)
        return AgentResult(content, self._limit > 0, _join(thinking), usage)

    def _fit(self, answers: list[MessageInput], size: int, count: int) -> list[MessageInput]:
        """Keeps the tool answers that fit in `max_context`, room kept for a notice in place of
        each of the `count` answers; from the first that does not fit on, each is replaced by a
        notice saying so."""
        full = False
        for index, answer in enumerate(answers):
            room = self._size - size - (count - index - 1) * NOTICE_ROOM
            full = full or message_size(answer) > room
            if full:
                answer["content"] = (
                    f"not kept: this answer of {len(answer['content'])} characters would take "
                    f"the conversation over the agent's max_context limit of {self._size}; ask "
                    "for less"
                )
                answer["error"] = True
            size += message_size(answer)
        return answers

    def _definitions(self) -> list[ToolDefinition] | None:
        return self._context.tools.definitions() or None

    async def _ask(
        self,
        working: Sequence[Message],
        signal: AbortSignal,
        definitions: list[ToolDefinition] | None,
        think: bool | None,
        turn: _Turn,
    ) -> Any:
        stream: Any = getattr(self._provider, "stream", None)
        if not callable(stream):
            return await self._provider.generate(list(working), signal, definitions, think=think)
        handle: Any = stream(list(working), signal, definitions, think=think)
        try:
            async for delta in handle:
                if isinstance(delta, Mapping) and isinstance(delta.get("text"), str):
                    kind = delta.get("type")
                    (turn.content if kind == "content" else turn.thinking).append(delta["text"])
            return handle.result
        finally:
            with anyio.CancelScope(shield=True):
                await close_stream(handle)

    async def _call_tools(self, calls: list[ToolCall], signal: AbortSignal) -> list[MessageInput]:
        results = None
        with signal.scope():
            results = await self._context.tools.execute(calls)
        answers: list[MessageInput] = []
        for index, call in enumerate(calls):
            outcome: Any = None if results is None else results[index]
            if outcome is None:
                text, failed = CANCELLED_ANSWER, True
            elif outcome["success"] is True:
                text, failed = encode_answer(outcome["value"])
            else:
                text, failed = str(outcome["error"]), True
            answer: MessageInput = {"role": "tool", "content": text, "call": call["id"]}
            if failed:
                answer["error"] = True
            answers.append(answer)
        return answers

    def _settle_partial(
        self,
        conversation: Any,
        turn: _Turn,
        thinking: list[str],
        usage: TokenUsage | None,
    ) -> AgentResult:
        partial = turn.partial if isinstance(turn.partial, Mapping) else {}
        text = partial.get("content")
        content = text if isinstance(text, str) and text else "".join(turn.content)
        reasoning = partial.get("thinking")
        if isinstance(reasoning, str) and reasoning:
            thinking.append(reasoning)
        elif turn.thinking:
            thinking.append("".join(turn.thinking))
        with contextlib.suppress(AgentError):
            usage = add_usage(usage, check_provider_result(partial).get("usage"))
        if content:
            conversation.add({"role": "assistant", "content": content})
        return AgentResult(content, True, _join(thinking), usage)

    def __repr__(self) -> str:
        return f"Agent(id={self._id!r}, status={self._status!r})"


def _join(thinking: list[str]) -> str | None:
    parts = [part for part in thinking if part]
    return "\n\n".join(parts) if parts else None


def _forward(source: AbortSignal, controller: AbortController) -> Callable[[], None]:
    """Aborts `controller` when `source` aborts; returns the undo."""

    def forward() -> None:
        controller.abort(source.reason)

    if source.aborted:
        controller.abort(source.reason)
    else:
        source.add_listener(forward)
    return lambda: source.remove_listener(forward)
