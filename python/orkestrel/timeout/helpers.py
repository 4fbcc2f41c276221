"""Validation of timeout construction options."""

from __future__ import annotations

from typing import Any

from orkestrel.contract.errors import ContractError, ContractErrorCode
from orkestrel.contract.helpers import preview
from orkestrel.timeout.constants import MAX_TIMEOUT_MS
from orkestrel.timeout.types import TimeoutOptions
from orkestrel.timeout.validators import is_timeout_duration, is_timeout_signal

_ABSENT: Any = object()


def _refuse(
    message: str, code: ContractErrorCode, path: list[str], limit: str, received: str
) -> ContractError:
    context = {"path": path, "limit": limit, "received": received}
    return ContractError(f"Timeout: {message}", code=code, context=context)


def _read(options: dict[str, Any], key: str) -> Any:
    try:
        value = options[key]
    except KeyError:
        return _ABSENT
    return _ABSENT if value is None else value


def _show(value: Any) -> str:
    return "undefined" if value is _ABSENT else preview(value)


def validate_timeout_options(options: Any) -> TimeoutOptions:
    """Validates once-read timeout options and returns a fresh copy without the absent keys.

    Each of `id`, `ms` and `signal` is read exactly once; `None` counts as absent. A bad value
    raises `ContractError` coded `bound`, `literal`, `range` or `placement`.
    """
    if not isinstance(options, dict):
        raise _refuse(
            "options must be a plain record", "bound", ["options"], "plain record", preview(options)
        )
    try:
        id_, ms, signal = _read(options, "id"), _read(options, "ms"), _read(options, "signal")
    except Exception as exc:
        raise _refuse(
            "options could not be read",
            "bound",
            ["options"],
            "readable plain record",
            preview(options),
        ) from exc
    if id_ is not _ABSENT and not isinstance(id_, str):
        raise _refuse(
            "id must be a string when defined",
            "literal",
            ["options", "id"],
            "string or undefined",
            _show(id_),
        )
    if not is_timeout_duration(ms):
        raise _refuse(
            "ms must be an integer in the supported range",
            "range",
            ["options", "ms"],
            f"integer in [0, {MAX_TIMEOUT_MS}]",
            _show(ms),
        )
    if signal is not _ABSENT and not is_timeout_signal(signal):
        raise _refuse(
            "signal must be a native AbortSignal when defined",
            "placement",
            ["options", "signal"],
            "native AbortSignal or undefined",
            _show(signal),
        )
    result: TimeoutOptions = {"ms": ms}
    if id_ is not _ABSENT:
        result = {"id": id_, "ms": ms}
    if signal is not _ABSENT:
        result["signal"] = signal
    return result
