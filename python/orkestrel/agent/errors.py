"""The typed failures of the agent layer: agent refusals, provider failures, provider aborts."""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

from orkestrel._errors import CodedError
from orkestrel.abort import AbortError
from orkestrel.agent.types import ProviderResult

AgentErrorCode = Literal["CONCURRENCY", "MESSAGE", "JOB", "RESULT", "LIMIT"]
"""Names the ways the agent layer refuses: a second concurrent run, a malformed message, a
malformed job, a provider result that is not a `ProviderResult`, or a spent bound (a
delegation tree's agents or model requests, a conversation's size)."""

ProviderErrorCode = Literal[
    "AUTHENTICATION",
    "RATE_LIMIT",
    "SERVER",
    "HTTP",
    "NETWORK",
    "PROTOCOL",
    "REQUEST",
    "SCRIPT",
    "DEADLINE",
]
"""Names the ways a provider call fails: refused credentials (401), a rate limit that outlasted
its retries (429), a backend failure (5xx), another HTTP refusal, a transport failure, a response
that breaks the wire format, a request the wire format cannot carry (a malformed message, a
tool name the backend refuses), an exhausted script, or a request that outlasted its total
deadline."""

AGENT_ERROR_CODES: frozenset[str] = frozenset(get_args(AgentErrorCode))
"""Holds every `AgentErrorCode`, for checking a code read from outside."""

PROVIDER_ERROR_CODES: frozenset[str] = frozenset(get_args(ProviderErrorCode))
"""Holds every `ProviderErrorCode`, for checking a code read from outside."""


class AgentError(CodedError[AgentErrorCode]):
    """Reports a refusal of the agent layer: `CONCURRENCY` (a run is already in flight on this
    agent), `MESSAGE` (a message input that is not well formed), `JOB` (a job that is not well
    formed), `RESULT` (a provider answered with something that is not a `ProviderResult`) or
    `LIMIT` (a bound was reached: an `AgentBudget`'s `max_agents` or `max_requests`, or an
    agent's `max_context`); a `LIMIT` message names the bound.
    """


class ProviderError(CodedError[ProviderErrorCode]):
    """Reports a failed provider call with a machine-readable `code`; `context` carries the HTTP
    `status` and the backend's own error `type` when there were any.

    Messages never hold the API key.
    """


class ProviderAbortError(AbortError):
    """Reports a provider call stopped by its signal, carrying in `partial` what had arrived by
    then: the text, the reasoning, any tool calls, and usage.
    """

    partial: ProviderResult

    def __init__(self, partial: ProviderResult | None = None, reason: object = None) -> None:
        super().__init__(reason)
        self.partial = partial if partial is not None else {"content": ""}

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.partial, self.reason))


def is_agent_error(value: object) -> TypeGuard[AgentError]:
    """Narrows an unknown caught value to an `AgentError` carrying a known code."""
    return isinstance(value, AgentError) and value.code in AGENT_ERROR_CODES


def is_provider_error(value: object) -> TypeGuard[ProviderError]:
    """Narrows an unknown caught value to a `ProviderError` carrying a known code."""
    return isinstance(value, ProviderError) and value.code in PROVIDER_ERROR_CODES
