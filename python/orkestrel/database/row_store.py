"""`RowStore`: what the stores kept as rows of one table share: the table, the database they own
when their factory built it, reads of one cell, deletes and closing."""

from __future__ import annotations

from typing import Any

from orkestrel.database.types import DatabaseInterface, TableInterface


class RowStore:
    """Keeps one row per id in one table of the database layer, and closes the database it was
    given: the one its factory built.

    A subclass says what a row's cell holds (`get`, `set`).
    """

    __slots__ = ("_database", "_table")

    def __init__(self, table: TableInterface, database: DatabaseInterface | None = None) -> None:
        self._table = table
        self._database = database

    async def _cell(self, id: str, column: str) -> Any:
        """The cell `column` of the row under `id`, or `None` when there is no such row."""
        row: Any = await self._table.get(id)
        return None if row is None else row.get(column)

    async def delete(self, id: str) -> None:
        """Forgets what is stored under `id`; an absent id is already satisfied."""
        await self._table.remove(id)

    async def close(self) -> None:
        """Closes the database the store owns, when its factory built it."""
        if self._database is not None:
            await self._database.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(table={self._table.name!r})"
