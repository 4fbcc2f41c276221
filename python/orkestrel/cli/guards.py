"""The read-only guard the served tools share: a call naming an operation that changes state
is refused under `--readonly` before the tool sees it."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from orkestrel.toolbox import ToolboxError


def changes_state(args: Any, mutations: Collection[str], readonly: bool) -> bool:
    """Whether the call `args` names one of `mutations`; under `readonly` such a call raises
    `ToolboxError('TOOL')` instead."""
    operation = args.get("operation") if isinstance(args, Mapping) else None
    changes = isinstance(operation, str) and operation in mutations
    if changes and readonly:
        raise ToolboxError(
            "TOOL",
            f"operation '{operation}' is disabled in readonly mode",
            {"operation": operation},
        )
    return changes
