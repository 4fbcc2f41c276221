"""The real model providers, over httpx (the `openai` and `anthropic` extras): an
OpenAI-compatible Chat Completions client and an Anthropic Messages client."""

from orkestrel.agent.providers.anthropic import AnthropicProvider
from orkestrel.agent.providers.openai import OpenAICompatibleProvider

__all__ = ["AnthropicProvider", "OpenAICompatibleProvider"]
