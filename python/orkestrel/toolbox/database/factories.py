"""The constructor-free way to reach the definition stores and the database tool."""

from __future__ import annotations

from orkestrel.database import DriverInterface, create_database
from orkestrel.toolbox.database.database_store import (
    DEFINITIONS_COLUMNS,
    DEFINITIONS_TABLE,
    DatabaseDefinitionStore,
)
from orkestrel.toolbox.database.memory_store import MemoryDefinitionStore
from orkestrel.toolbox.database.types import DefinitionStoreInterface


def create_memory_definition_store() -> DefinitionStoreInterface:
    """Creates the in-memory `DefinitionStoreInterface`: a process-lifetime dict of database
    definitions, the default store the database tool persists its definitions through.
    """
    return MemoryDefinitionStore()


def create_database_definition_store(
    driver: DriverInterface | None = None,
) -> DatabaseDefinitionStore:
    """Creates a `DefinitionStoreInterface` kept in one table of the database layer, the
    driver-pluggable twin of `create_memory_definition_store`, storing each database's
    definition as one JSON cell (in memory unless a driver is given).
    """
    database = create_database(tables={DEFINITIONS_TABLE: DEFINITIONS_COLUMNS}, driver=driver)
    return DatabaseDefinitionStore(database.table(DEFINITIONS_TABLE), database)
