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
        "task": string_shape(
            min=1, description="The whole task, self-contained: the sub-agent sees nothing else."
        ),
        "provider": optional_shape(
            string_shape(min=1, description="The configured model to run; omit for the default.")
        ),
        "tools": optional_shape(
            array_shape(
                string_shape(min=1),
                description="Tool names the sub-agent may call, replacing its defaults.",
            )
        ),
        "system": optional_shape(
            string_shape(description="Instructions for the sub-agent, replacing its defaults.")
        ),
    }
)
"""Describes the shape of `AgentToolArguments`, `{task, provider?, tools?, system?}`:
`create_agent_tool`'s advertised `parameters`."""
