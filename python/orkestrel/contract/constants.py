"""Limits and vocabularies shared by every contract door, read from the Rust core."""

from orkestrel._core import (
    CLONE_NODE_LIMIT,
    COMPILE_DEPTH_LIMIT,
    COMPILE_NODE_LIMIT,
    FAULT_LIMIT,
    GENERATION_ATTEMPT_LIMIT,
    GUARD_DEPTH_LIMIT,
    INFER_BREADTH_LIMIT,
    INFER_DEPTH_LIMIT,
    JSON_SCHEMA_TYPES,
    PREVIEW_LIMIT,
)

CONTRACT_ERROR_BRAND = "@orkestrel/contract.error"

__all__ = [
    "CLONE_NODE_LIMIT",
    "COMPILE_DEPTH_LIMIT",
    "COMPILE_NODE_LIMIT",
    "CONTRACT_ERROR_BRAND",
    "FAULT_LIMIT",
    "GENERATION_ATTEMPT_LIMIT",
    "GUARD_DEPTH_LIMIT",
    "INFER_BREADTH_LIMIT",
    "INFER_DEPTH_LIMIT",
    "JSON_SCHEMA_TYPES",
    "PREVIEW_LIMIT",
]
