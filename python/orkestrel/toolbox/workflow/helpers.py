"""The checks the workflow family's composition shares: registry snapshots and what makes a
value a live agent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.constants import MAX_FAILURE_MESSAGE

_AGENT_MEMBERS = ("id", "status", "context", "generate")


def snapshot_registry(option: str, value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A shallow copy of a registry option, or `TOOL` when it is not a readable mapping with
    string keys."""
    if value is None:
        return {}
    try:
        copied = dict(value.items()) if isinstance(value, Mapping) else None
    except Exception:
        copied = None
    if copied is None:
        raise ToolboxError("TOOL", f"workflow {option} must be a mapping of name to value")
    for key in copied:
        if type(key) is not str or not key:
            raise ToolboxError(
                "TOOL", f"workflow {option} names must be non-empty strings", {"name": repr(key)}
            )
    return copied


def is_live_agent(value: object) -> bool:
    """Whether `value` offers what a workflow runs an agent through: an `id`, a `status`, a
    `context` and a callable `generate`; total on any input."""
    try:
        return all(hasattr(value, name) for name in _AGENT_MEMBERS) and callable(
            getattr(value, "generate", None)
        )
    except Exception:
        return False


def cut_message(message: str) -> str:
    """`message`, cut to `MAX_FAILURE_MESSAGE` characters ending with `…` when longer."""
    if len(message) > MAX_FAILURE_MESSAGE:
        return f"{message[: MAX_FAILURE_MESSAGE - 1]}…"
    return message
