"""The abort controller: the owner side of an `AbortSignal`."""

from __future__ import annotations

from orkestrel.abort.signal import AbortSignal


class AbortController:
    """Owns one `AbortSignal` and is the only thing that can abort it."""

    __slots__ = ("_signal",)

    def __init__(self) -> None:
        self._signal = AbortSignal()

    @property
    def signal(self) -> AbortSignal:
        """The signal this controller aborts."""
        return self._signal

    def abort(self, reason: object = None) -> None:
        """Aborts the signal and runs its listeners in order; later calls do nothing."""
        self._signal._abort(reason)

    def __repr__(self) -> str:
        return f"<AbortController signal={self._signal!r}>"
