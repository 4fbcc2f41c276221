"""The definition store kept in one table of the database layer."""

from __future__ import annotations

from orkestrel.database import Column, Condition
from orkestrel.database.row_store import RowStore
from orkestrel.toolbox.database.types import DatabaseDefinition
from orkestrel.toolbox.database.validators import is_database_definition

DEFINITIONS_TABLE = "definitions"
"""Names the table a `DatabaseDefinitionStore` built by its factory keeps definitions in."""

DEFINITIONS_COLUMNS: dict[str, Column] = {"id": Column("string"), "definition": Column("json")}
"""Declares the definitions table: the database id, and the definition as one JSON cell."""


class DatabaseDefinitionStore(RowStore):
    """Represents a `DefinitionStoreInterface` kept in one table of the database layer: each
    definition is a row `{id, definition}`, so a durable driver keeps definitions across
    processes.

    A stored blob that is not a valid definition reads back as `None`.
    """

    __slots__ = ()

    async def get(self, id: str) -> DatabaseDefinition | None:
        """Resolves the persisted definition for `id`, narrowing the opaque JSON cell back to a
        `DatabaseDefinition`.
        """
        definition = await self._cell(id, "definition")
        return definition if is_database_definition(definition) else None

    async def set(self, definition: DatabaseDefinition) -> None:
        """Inserts or replaces a definition under its own `id`; the written row is
        `{id, definition}`.
        """
        id = definition.get("id") if isinstance(definition, dict) else None
        if not isinstance(id, str) or not id:
            raise ValueError("a definition needs a non-empty string id")
        await self._table.set({"id": id, "definition": definition})

    async def ids(self, prefix: str, limit: int) -> tuple[list[str], int]:
        """The first `limit` stored ids that start with `prefix`, in order, and how many do."""
        starts: Condition = {"column": "id", "operator": "starts", "values": [prefix]}
        rows = await self._table.records(
            {
                "conditions": [starts],
                "order": [{"column": "id", "direction": "ascending"}],
                "limit": limit,
            }
        )
        return [str(row["id"]) for row in rows], await self._table.count({"conditions": [starts]})

    def __repr__(self) -> str:
        return f"<DatabaseDefinitionStore table={self._table.name!r}>"
