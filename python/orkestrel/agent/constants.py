"""The defaults and fixed texts of the agent layer."""

from __future__ import annotations

from typing import Final

DEFAULT_AGENT_LIMIT: Final = 10
"""Holds how many provider turns one run may take unless told otherwise, `10`."""

AGENT_MAX_CALLS: Final = 32
"""Holds how many tool calls of one model turn an agent runs unless told otherwise, `32`; the
calls past it are dropped, and the model is told so in the answer to the first dropped one."""

AGENT_MAX_CONTEXT: Final = 16 * 1024 * 1024
"""Holds how many characters an agent's conversation may hold unless told otherwise, 16 Mi
(16,777,216), more than any model's context window: a tool answer that would pass it is
replaced by a short notice, and a conversation already past it is not sent (`AgentError`
`LIMIT`)."""

THINK_OPEN: Final = "<think>"
"""Holds the tag that opens a span of reasoning inside a model's content, `<think>`."""

THINK_CLOSE: Final = "</think>"
"""Holds the tag that closes a span of reasoning inside a model's content, `</think>`."""

ABORT_GRACE: Final = 1.0
"""Holds how long, in seconds, a provider call is given to stop on its own once the run's signal
aborts (so it can hand back its partial result) before the agent cancels it, `1.0`."""

PROVIDER_RESPONSE_LIMIT: Final = 8 * 1024 * 1024
"""Holds the most bytes an HTTP provider reads from one response unless told otherwise, 8 MiB;
a longer body is a `PROTOCOL` error rather than unbounded memory."""

PROVIDER_RETRIES: Final = 2
"""Holds how many times an HTTP provider retries a rate-limited (429) request unless told
otherwise, `2`."""

PROVIDER_RETRY_WAIT: Final = 30.0
"""Holds the longest `Retry-After`, in seconds, an HTTP provider waits before a retry unless told
otherwise, `30.0`; a backend asking for longer fails at once with `RATE_LIMIT`."""

TOOL_RESULT_UNENCODABLE: Final = "tool result is not JSON-encodable"
"""Holds the failure text a tool message carries when a tool answered a value JSON cannot
hold."""

OPENAI_BASE_URL: Final = "https://api.openai.com/v1"
"""Holds the base URL of OpenAI's own API, the default of `OpenAICompatibleProvider`."""

ANTHROPIC_BASE_URL: Final = "https://api.anthropic.com"
"""Holds the base URL of Anthropic's API, the default of `AnthropicProvider`."""

ANTHROPIC_VERSION: Final = "2023-06-01"
"""Holds the `anthropic-version` header value `AnthropicProvider` sends unless told otherwise."""

ANTHROPIC_MAX_TOKENS: Final = 4096
"""Holds the `max_tokens` `AnthropicProvider` asks for unless told otherwise."""

PROVIDER_TIMEOUT: Final = 600.0
"""Holds the read timeout, in seconds, of an HTTP provider unless told otherwise, `600.0`: long
enough for a slow model to start answering."""

PROVIDER_DEADLINE: Final = 900.0
"""Holds the total time, in seconds, one HTTP provider request may take from sending to its
last byte (429 retries included) unless told otherwise, `900.0`; a backend that stalls after
its headers or drips its answer fails with `DEADLINE` instead of holding the call."""

AGENT_MAX_AGENTS: Final = 64
"""Holds how many sub-agents one top-level call may start across its whole delegation tree
unless told otherwise, `64`: the `max_agents` of an `AgentBudget`."""

AGENT_MAX_REQUESTS: Final = 256
"""Holds how many model requests one top-level call may make across its whole delegation tree
unless told otherwise, `256`: the `max_requests` of an `AgentBudget`."""
