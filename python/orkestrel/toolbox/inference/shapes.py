"""The call shape of the infer tool."""

from __future__ import annotations

from orkestrel.contract import (
    ObjectShape,
    array_shape,
    boolean_shape,
    json_shape,
    object_shape,
    optional_shape,
)

infer_tool_shape: ObjectShape = object_shape(
    {
        "samples": array_shape(json_shape(), min=1),
        "format": optional_shape(boolean_shape()),
        "enum": optional_shape(boolean_shape()),
        "candidates": optional_shape(array_shape(json_shape())),
    }
)
"""Holds the contract shape of an infer call: `{samples, format?, enum?, candidates?}`."""
