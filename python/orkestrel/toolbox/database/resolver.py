"""The `DatabaseResolver`: live database handles by id, rebuilt from stored definitions."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from orkestrel.database import (
    DatabaseInterface,
    DriverFactory,
    DriverInterface,
    KeyGenerator,
    create_database,
)
from orkestrel.toolbox.database.coalesced_reads import CoalescedReads
from orkestrel.toolbox.database.compilers import expand_tables
from orkestrel.toolbox.database.helpers import build_driver
from orkestrel.toolbox.database.types import (
    DatabaseDefinition,
    DefinitionListingInterface,
    DefinitionStoreInterface,
)
from orkestrel.toolbox.errors import ToolboxError


class DatabaseResolver:
    """Resolves a database definition into a cached live handle for a database tool, over the
    tool's live handles, its stored definitions, its driver registry, and an optional key
    generator.

    The handle map is copied, so later changes to the caller's map are not seen. A resolver
    built `readonly` opens every database it constructs read-only at the engine. With a store,
    every resolve reads the stored definition, so a database destroyed or re-created through
    another process (another server on one PostgreSQL) is current on the next call (concurrent
    resolves of one id share reads that started after they were asked); a handle the caller
    gave is served as it is.
    """

    __slots__ = (
        "_definitions",
        "_drivers",
        "_generator",
        "_handles",
        "_readonly",
        "_reads",
        "_store",
    )

    def __init__(
        self,
        handles: Mapping[str, DatabaseInterface] | None,
        drivers: Mapping[str, DriverFactory | Callable[[], DriverInterface]],
        generator: KeyGenerator | None = None,
        store: DefinitionStoreInterface | None = None,
        *,
        readonly: bool = False,
    ) -> None:
        self._handles: dict[str, DatabaseInterface] = dict(handles or {})
        self._definitions: dict[str, DatabaseDefinition] = {}
        self._drivers = dict(drivers)
        self._generator = generator
        self._store = store
        self._reads = None if store is None else CoalescedReads(store.get)
        self._readonly = readonly

    def has(self, id: str) -> bool:
        """Determines whether a live database is cached by id."""
        return id in self._handles

    def given(self, id: str) -> bool:
        """Determines whether id names a live handle the caller gave, which no stored
        definition replaces."""
        return id in self._handles and id not in self._definitions

    def get(self, id: str) -> DatabaseInterface | None:
        """Reads a cached database without consulting the definition store."""
        return self._handles.get(id)

    def set(
        self, id: str, database: DatabaseInterface, definition: DatabaseDefinition | None = None
    ) -> None:
        """Caches a live database by id, with the definition it was built from, if any."""
        self._handles[id] = database
        if definition is None:
            self._definitions.pop(id, None)
        else:
            self._definitions[id] = definition

    def delete(self, id: str) -> None:
        """Removes a cached live database by id."""
        self._handles.pop(id, None)
        self._definitions.pop(id, None)

    @property
    def store(self) -> DefinitionStoreInterface | None:
        """The definition store the resolver reads, if any."""
        return self._store

    @property
    def readonly(self) -> bool:
        """Whether the databases the resolver builds open read-only."""
        return self._readonly

    async def ids(self, prefix: str, limit: int) -> tuple[list[str], int]:
        """The first `limit` database ids that start with `prefix`, in order, and how many do:
        the handles the caller gave, and the stored definitions (without a store, the cached
        handles). A store that cannot list its ids adds none."""
        handles = [id for id in self._handles if id.startswith(prefix)]
        if self._store is None:
            return sorted(handles)[:limit], len(handles)
        given = [id for id in handles if self.given(id)]
        stored: list[str] = []
        total = 0
        if isinstance(self._store, DefinitionListingInterface):
            stored, total = await self._store.ids(prefix, limit)
        extra = [id for id in given if id not in stored]
        return sorted({*stored, *extra})[:limit], total + len(extra)

    async def close(self) -> None:
        """Closes every cached database and empties the cache; stored definitions stay."""
        handles, self._handles = self._handles, {}
        self._definitions = {}
        for database in handles.values():
            await database.close()

    def build(self, definition: DatabaseDefinition) -> DatabaseInterface:
        """Constructs (without caching) the live database a definition describes; an unknown
        driver raises `ToolboxError` coded `TOOL`.
        """
        id, name = definition["id"], definition["driver"]
        factory = self._drivers.get(name)
        if factory is None:
            raise ToolboxError("TOOL", f"unknown driver '{name}'", {"id": id, "driver": name})
        return create_database(
            driver=build_driver(factory, id),
            tables=expand_tables(definition["tables"]),
            name=id,
            primary=definition.get("primary"),
            indexes=definition.get("indexes"),
            version=definition.get("version"),
            generator=self._generator,
            readonly=self._readonly,
        )

    async def resolve(self, id: str) -> DatabaseInterface:
        """Resolves a live database by id (see `current`); an id known to neither the handles
        nor the store raises `ToolboxError` coded `TOOL`."""
        database = await self.current(id)
        if database is None:
            raise ToolboxError("TOOL", f"unknown database '{id}'", {"id": id})
        return database

    async def current(self, id: str) -> DatabaseInterface | None:
        """Resolves the live database for id as it is defined now: a handle the caller gave;
        without a store, the cached handle; with one, the cached handle while the stored
        definition is still the one it was built from, else a handle built from the stored
        definition (the stale one is closed), or `None` when none is stored. A handle set while
        the definition was being read (by a concurrent create) is newer than that read: it is
        the answer, never closed for it.
        """
        before = self._handles.get(id)
        if before is not None and (self._store is None or self.given(id)):
            return before
        definition = None if self._reads is None else await self._reads.get(id)
        cached = self._handles.get(id)
        if cached is not None and (cached is not before or self.given(id)):
            return cached
        fresh = definition is not None and self._definitions.get(id) == definition
        if cached is not None and cached.status != "closed" and fresh:
            return cached
        database = None if definition is None else self.build(definition)
        if database is None:
            self.delete(id)
        else:
            self.set(id, database, definition)
        if cached is not None:
            await cached.close()
        return database

    def __repr__(self) -> str:
        return f"<DatabaseResolver cached={sorted(self._handles)!r}>"
