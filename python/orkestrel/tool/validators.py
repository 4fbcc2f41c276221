"""The call-envelope guard."""

from __future__ import annotations

from typing import Any, TypeGuard

from orkestrel.tool.types import ToolCall


def is_tool_call(value: Any) -> TypeGuard[ToolCall]:
    """Determines whether an unknown value is structurally a `ToolCall`, staying total for
    malformed and adversarial input; `arguments` must be a `dict` whose keys are all strings.

    It checks the envelope only: a `dict` with a `str` `id` and `name` and a `dict` `arguments`
    whose keys are all strings (an object, as JSON has them).
    `caller` is never read, and any exception while reading means `False`.
    """
    try:
        return (
            isinstance(value, dict)
            and isinstance(value["id"], str)
            and isinstance(value["name"], str)
            and isinstance(value["arguments"], dict)
            and all(isinstance(key, str) for key in value["arguments"])
        )
    except Exception:
        return False
