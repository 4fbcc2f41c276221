"""The in-memory definition store."""

from __future__ import annotations

import copy

from orkestrel.toolbox.database.types import DatabaseDefinition


class MemoryDefinitionStore:
    """Represents the in-memory `DefinitionStoreInterface`: a process-lifetime dict of
    `DatabaseDefinition`s keyed by database id, copied on write and on read so no caller can
    alias stored state.
    """

    __slots__ = ("_definitions",)

    def __init__(self) -> None:
        self._definitions: dict[str, DatabaseDefinition] = {}

    async def get(self, id: str) -> DatabaseDefinition | None:
        """Resolves the persisted definition for `id`, copied out of the backing dict."""
        definition = self._definitions.get(id)
        return None if definition is None else copy.deepcopy(definition)

    async def set(self, definition: DatabaseDefinition) -> None:
        """Inserts or replaces a definition under its own `id`, copied into the backing dict."""
        self._definitions[definition["id"]] = copy.deepcopy(definition)

    async def delete(self, id: str) -> None:
        """Drops the definition stored under `id`."""
        self._definitions.pop(id, None)

    async def ids(self, prefix: str, limit: int) -> tuple[list[str], int]:
        """The first `limit` stored ids that start with `prefix`, in order, and how many do."""
        found = sorted(id for id in self._definitions if id.startswith(prefix))
        return found[:limit], len(found)

    def __repr__(self) -> str:
        return f"<MemoryDefinitionStore ids={sorted(self._definitions)!r}>"
