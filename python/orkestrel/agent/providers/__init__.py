"""The real model providers, over httpx (the `openai` and `anthropic` extras): an
OpenAI-compatible Chat Completions client and an Anthropic Messages client."""

from orkestrel.agent.providers.anthropic import (
    ANTHROPIC_BASE_URL,
    ANTHROPIC_MAX_TOKENS,
    ANTHROPIC_VERSION,
    AnthropicProvider,
)
from orkestrel.agent.providers.openai import OPENAI_BASE_URL, OpenAICompatibleProvider

__all__ = [
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MAX_TOKENS",
    "ANTHROPIC_VERSION",
    "OPENAI_BASE_URL",
    "AnthropicProvider",
    "OpenAICompatibleProvider",
]
