"""The `RelationManager` class: the models of one database, their relation maps checked once."""

from __future__ import annotations

from typing import Any

from orkestrel.database import DatabaseInterface
from orkestrel.relation.graph import build_graph
from orkestrel.relation.model import Model


class RelationManager:
    """Serves one model per declared table of a database, each with its relations.

    Every relation map is resolved and checked against the declared tables and columns when the
    manager is built, so a map that cannot work raises `RelationError` coded `INVALID` before
    any query. `models()` lists the tables given a map (an empty one counts); `model(name)`
    serves any declared table, one without a map as a model without relations.
    """

    __slots__ = ("_database", "_graph", "_models")

    def __init__(self, *, database: DatabaseInterface, relations: Any = None) -> None:
        self._database = database
        self._graph = build_graph(database, relations)
        self._models: dict[str, Model] = {}

    @property
    def database(self) -> DatabaseInterface:
        """The database the models read and write."""
        return self._database

    @property
    def count(self) -> int:
        """How many tables have a relation map."""
        return len(self._graph.relations)

    def model(self, name: str) -> Model:
        """Returns the model of a declared table; an undeclared name raises the database's
        `DatabaseError` coded `NOT_FOUND`.
        """
        model = self._models.get(name) if isinstance(name, str) else None
        if model is None:
            model = Model(self._database, self._graph, name)
            self._models[name] = model
        return model

    def models(self) -> list[str]:
        """Lists the tables that have a relation map, in the order they were given."""
        return list(self._graph.relations)

    def has(self, name: str) -> bool:
        """Determines whether a table has a relation map."""
        return isinstance(name, str) and name in self._graph.relations

    def __repr__(self) -> str:
        return f"<RelationManager models={self.models()!r}>"
