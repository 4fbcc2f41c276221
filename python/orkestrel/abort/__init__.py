"""Cancellation signals: an `AbortController` that aborts an `AbortSignal` once."""

from orkestrel.abort.controller import AbortController
from orkestrel.abort.signal import AbortError, AbortListener, AbortSignal, is_abort_signal

__all__ = ["AbortController", "AbortError", "AbortListener", "AbortSignal", "is_abort_signal"]
