"""Stored definitions read for many concurrent calls by few reads."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

import anyio

from orkestrel.database import database_fair_limiter
from orkestrel.toolbox.database.types import DatabaseDefinition

Read = Callable[[str], Awaitable[DatabaseDefinition | None]]


@dataclass
class _Slot:
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    started: int = 0
    answered: int = 0
    answer: DatabaseDefinition | None = None
    users: int = 0


class CoalescedReads:
    """Reads the stored definition of an id for concurrent calls, one read at a time per id and
    caller of the database threads (`database_fair_limiter().caller`): a call takes the answer
    of a read that started after it asked, when one has finished by its turn, and reads itself
    otherwise. So every call sees a definition stored no earlier than itself, a flood of calls
    on one database costs a few reads, not one each, and no caller waits on another's reads,
    which run in that other caller's turns."""

    __slots__ = ("_read", "_slots")

    def __init__(self, read: Read) -> None:
        self._read = read
        self._slots: dict[tuple[str, Hashable | None], _Slot] = {}

    async def get(self, id: str) -> DatabaseDefinition | None:
        """Reads the definition stored under `id` now, or shares a read that started later."""
        key = (id, database_fair_limiter().caller())
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot()
        slot.users += 1
        asked = slot.started
        try:
            async with slot.lock:
                if slot.answered > asked:
                    return slot.answer
                slot.started += 1
                number = slot.started
                answer = await self._read(id)
                slot.answered, slot.answer = number, answer
                return answer
        finally:
            slot.users -= 1
            if slot.users == 0:
                del self._slots[key]
