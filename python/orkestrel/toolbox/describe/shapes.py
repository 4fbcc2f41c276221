"""The call shape of the describe tool."""

from __future__ import annotations

from orkestrel.contract import ObjectShape, object_shape, optional_shape, string_shape

describe_tool_shape: ObjectShape = object_shape(
    {"name": string_shape(min=1), "operation": optional_shape(string_shape(min=1))}
)
"""Holds the contract shape of a describe call: `{name, operation?}`, a non-empty tool name and
optionally one of its operations."""
