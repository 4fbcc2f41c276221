"""The agent tool: one task handed to a fresh sub-agent built from an agent registry."""

from orkestrel.toolbox.agent.constants import (
    AGENT_TOOL_DEPTH,
    AGENT_TOOL_DESCRIPTION,
    AGENT_TOOL_NAME,
    AGENT_TOOL_SUMMARY,
)
from orkestrel.toolbox.agent.factories import create_agent_tool
from orkestrel.toolbox.agent.shapes import agent_tool_shape
from orkestrel.toolbox.agent.types import AgentToolArguments, AgentToolOptions

__all__ = [
    "AGENT_TOOL_DEPTH",
    "AGENT_TOOL_DESCRIPTION",
    "AGENT_TOOL_NAME",
    "AGENT_TOOL_SUMMARY",
    "AgentToolArguments",
    "AgentToolOptions",
    "agent_tool_shape",
    "create_agent_tool",
]
