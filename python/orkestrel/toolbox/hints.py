"""The MCP annotations the toolbox tools declare: what a client may assume about side effects."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

READS: Final[Mapping[str, Any]] = MappingProxyType(
    {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
)
"""The hints of a tool that only computes: no side effects, the same answer twice, a closed
world."""

READS_STATE: Final[Mapping[str, Any]] = MappingProxyType(
    {"readOnlyHint": True, "openWorldHint": False}
)
"""The hints of a tool opened read-only over state that others may change."""

WRITES: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": False,
    }
)
"""The hints of a tool that may overwrite or delete the state it manages."""

DELEGATES: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
    }
)
"""The hints of a tool that hands work to a model: it may act through the tools it passes on,
gives a different answer each time, and reaches outside the process."""

RUNS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
)
"""The hints of a tool that runs arbitrary registered code: it may change anything, anywhere."""

ASKS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": True,
    }
)
"""The hints of a tool that asks a person: nothing is overwritten, but each call is a new
question to someone outside."""

ANSWERS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }
)
"""The hints of a tool that answers parked forms: it settles them, and overwrites nothing."""
