"""A timer the tests fire by hand, counting what is armed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Armed:
    """One armed callback."""

    callback: Callable[[], None]
    ms: int
    cancelled: bool = False
    fired: bool = False


@dataclass
class FakeTimer:
    """A `TimerHandler` whose callbacks run only when a test calls `fire`."""

    armed: list[Armed] = field(default_factory=list)

    def __call__(self, callback: Callable[[], None], ms: int) -> Callable[[], None]:
        entry = Armed(callback, ms)
        self.armed.append(entry)

        def cancel() -> None:
            entry.cancelled = True

        return cancel

    @property
    def live(self) -> list[Armed]:
        """The callbacks armed, neither fired nor cancelled."""
        return [entry for entry in self.armed if not entry.cancelled and not entry.fired]

    def fire(self, index: int = -1) -> None:
        """Runs one live callback (the latest by default)."""
        entry = self.live[index]
        entry.fired = True
        entry.callback()

    def fire_all(self) -> None:
        """Runs every live callback, oldest first."""
        for entry in list(self.live):
            entry.fired = True
            entry.callback()
