"""Limits and vocabularies shared by every contract door, read from the Rust core."""

from typing import Final

from orkestrel import _core

FAULT_LIMIT: Final[int] = _core.FAULT_LIMIT
"""Maximum entries in any fault report, at every nesting level."""

PREVIEW_LIMIT: Final[int] = _core.PREVIEW_LIMIT
"""Maximum UTF-16 length of a previewed string before it is cut with an ellipsis."""

GUARD_DEPTH_LIMIT: Final[int] = _core.GUARD_DEPTH_LIMIT
"""The reference's nesting cap for its bounded JSON guards, kept for parity; nothing here
uses it."""

COMPILE_DEPTH_LIMIT: Final[int] = _core.COMPILE_DEPTH_LIMIT
"""Maximum shape height, in edges from the root to the deepest leaf."""

COMPILE_NODE_LIMIT: Final[int] = _core.COMPILE_NODE_LIMIT
"""Maximum size of the tree a shape graph expands into, counting every edge."""

CLONE_NODE_LIMIT: Final[int] = _core.CLONE_NODE_LIMIT
"""Maximum number of nodes a JSON clone may produce."""

GENERATION_ATTEMPT_LIMIT: Final[int] = _core.GENERATION_ATTEMPT_LIMIT
"""The reference's minimum number of attempts for its union generator, kept for parity; this
port has no generator."""

INFER_DEPTH_LIMIT: Final[int] = _core.INFER_DEPTH_LIMIT
"""Depth budget of schema inference and of `schema_to_shape`."""

INFER_BREADTH_LIMIT: Final[int] = _core.INFER_BREADTH_LIMIT
"""Per-container key and variant cap of schema inference and of `schema_to_shape`."""

JSON_SCHEMA_TYPES: Final[tuple[str, ...]] = _core.JSON_SCHEMA_TYPES
"""The seven JSON Schema type names."""

CONTRACT_ERROR_BRAND: Final[str] = "@orkestrel/contract.error"
"""The brand the reference uses to recognise contract errors across copies, as a string;
`is_contract_error` checks the class and the code instead."""

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
