"""`LogLevels`: the least log level each connection asked for with `logging/setLevel`."""

from __future__ import annotations

import weakref
from typing import Any

from orkestrel.tool.context import LOG_LEVELS


class LogLevels:
    """Remembers, per connection (weakly, so a closed one is forgotten), the level its client
    set; a connection that set none hears every level."""

    __slots__ = ("_levels",)

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()

    def set(self, connection: Any, level: str) -> None:
        """Records `level` as the least `connection` hears."""
        self._levels[connection] = _rank(level)

    def allows(self, connection: Any, level: str) -> bool:
        """Whether an entry at `level` may go to `connection`."""
        least = self._levels.get(connection)
        return least is None or _rank(level) >= least


def _rank(level: str) -> int:
    return [str(name) for name in LOG_LEVELS].index(level)
