"""The defaults and fixed texts of the agent layer."""

from __future__ import annotations

from typing import Final

DEFAULT_AGENT_LIMIT: Final = 10
"""Holds how many provider turns one run may take unless told otherwise, `10`."""

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
