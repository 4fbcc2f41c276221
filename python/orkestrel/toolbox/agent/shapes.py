"""The call shape of the agent tool."""

from __future__ import annotations

from orkestrel.contract import (
    ObjectShape,
    array_shape,
    object_shape,
    optional_shape,
    string_shape,
)

agent_tool_shape: ObjectShape = object_shape(
    {
        "task": string_shape(min=1, description="Self-contained: the sub-agent sees nothing else."),
        "provider": optional_shape(string_shape(min=1)),
        "tools": optional_shape(
            array_shape(
                string_shape(min=1),
                description="Replaces the defaults.",
            )
        ),
        "system": optional_shape(string_shape(description="Replaces the defaults.")),
    }
)
"""Describes the shape of `AgentToolArguments`, `{task, provider?, tools?, system?}`:
`create_agent_tool`'s advertised `parameters`."""
