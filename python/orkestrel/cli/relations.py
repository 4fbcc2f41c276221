"""`--relations FILE`: the relation tool over the databases the database tool manages, with
relation maps read from a small TOML or JSON file.

The file maps a database id to that database's relation maps (table name to relation name to
relation), in the forms `orkestrel.relation` accepts:

    [shop.accounts]
    contacts = ["accountId"]                               # many: contacts.accountId
    representatives = { through = "accountReps", source = "accountId", target = "repId" }

    [shop.contacts]
    account = { column = "accountId", model = "accounts" } # belongs

Each database id becomes one relation manager of that name. The database itself is resolved
through the database tool on the first call that needs it, so it may be created after the
server starts; the maps are checked against its tables then, and their shape at startup.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from orkestrel.abort import AbortSignal
from orkestrel.cli.toolbox import ToolboxSetupError
from orkestrel.database import DatabaseInterface, Direction, Key, TableInterface
from orkestrel.relation import (
    Include,
    Loaded,
    ModelInterface,
    RelationError,
    RelationManagerInterface,
    ResolvedRelation,
    create_relation_manager,
    resolve_relation_map,
)
from orkestrel.toolbox import DatabaseResolver, ToolboxError

RelationFile = dict[str, dict[str, Any]]
"""The parsed relations file: database id to table name to relation map."""


def read_relations(path: Path) -> RelationFile:
    """Reads and checks the shape of a relations file (TOML when it ends in `.toml`, JSON
    otherwise); anything unreadable or malformed raises `ToolboxSetupError`.
    """
    try:
        text = path.read_bytes()
    except OSError as error:
        raise ToolboxSetupError(
            f"cannot read relations file {str(path)!r}: {error.strerror}"
        ) from None
    try:
        if path.suffix.lower() == ".toml":
            data: Any = tomllib.loads(text.decode("utf-8"))
        else:
            data = json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise ToolboxSetupError(f"relations file {str(path)!r} is not valid: {error}") from None
    if not isinstance(data, dict) or not data:
        raise ToolboxSetupError(
            f"relations file {str(path)!r} must map database ids to their relation maps"
        )
    for id, maps in data.items():
        if not isinstance(maps, dict):
            raise ToolboxSetupError(
                f"relations file {str(path)!r}: database {id!r} must map tables to relation maps"
            )
        for table, relations in maps.items():
            try:
                resolve_relation_map(relations)
            except RelationError as error:
                raise ToolboxSetupError(
                    f"relations file {str(path)!r}: {id}.{table}: {error.message}"
                ) from None
    return data


class ServedManager:
    """A relation manager over one database the database tool manages, built when a call first
    needs the database and rebuilt when the database tool replaces it.
    """

    __slots__ = ("_built", "_id", "_maps", "_models", "_resolver", "_static")

    def __init__(self, id: str, maps: Mapping[str, Any], resolver: DatabaseResolver) -> None:
        self._id = id
        self._maps = dict(maps)
        self._resolver = resolver
        self._static = {table: resolve_relation_map(raw) for table, raw in self._maps.items()}
        self._built: tuple[DatabaseInterface, RelationManagerInterface] | None = None
        self._models: dict[str, ServedModel] = {}

    async def live(self) -> RelationManagerInterface:
        """The relation manager over the database as it is now."""
        database = await self._resolver.resolve(self._id)
        if self._built is None or self._built[0] is not database:
            self._built = (
                database,
                create_relation_manager(database=database, relations=self._maps),
            )
        return self._built[1]

    @property
    def database(self) -> DatabaseInterface:
        """The database the manager was last built over."""
        if self._built is None:
            raise ToolboxError("TOOL", f"database '{self._id}' has not been opened yet")
        return self._built[0]

    @property
    def count(self) -> int:
        """How many tables the file gives a relation map."""
        return len(self._maps)

    def models(self) -> list[str]:
        """Lists the tables the file gives a relation map, in file order."""
        return list(self._maps)

    def has(self, name: str) -> bool:
        """Determines whether the file gives a table a relation map."""
        return isinstance(name, str) and name in self._maps

    def model(self, name: str) -> ServedModel:
        """Returns the model of a table; a table the file names no relations for has none."""
        model = self._models.get(name)
        if model is None:
            model = self._models[name] = ServedModel(self, name, self._static.get(name, {}))
        return model


class ServedModel:
    """A model whose calls first bring its manager up to date with the database."""

    __slots__ = ("_manager", "_name", "_relations")

    def __init__(
        self, manager: ServedManager, name: str, relations: Mapping[str, ResolvedRelation]
    ) -> None:
        self._manager = manager
        self._name = name
        self._relations = MappingProxyType(dict(relations))

    @property
    def name(self) -> str:
        """The table the model reads."""
        return self._name

    @property
    def table(self) -> TableInterface:
        """The database table behind the model, once the database is open."""
        return self._manager.database.table(self._name)

    @property
    def relations(self) -> Mapping[str, ResolvedRelation]:
        """The model's resolved relations by name, read-only."""
        return self._relations

    async def _live(self) -> ModelInterface:
        return (await self._manager.live()).model(self._name)

    async def load(
        self, key: Any, include: Include | None = None, *, signal: AbortSignal | None = None
    ) -> Any:
        """Reads rows by key with their relations attached."""
        return await (await self._live()).load(key, include, signal=signal)

    async def find(
        self,
        include: Include | None = None,
        *,
        limit: int | None = None,
        offset: int | None = None,
        sort: str | None = None,
        direction: Direction | None = None,
        signal: AbortSignal | None = None,
    ) -> list[Loaded]:
        """Reads a page of rows with their relations attached."""
        model = await self._live()
        return await model.find(
            include, limit=limit, offset=offset, sort=sort, direction=direction, signal=signal
        )

    async def link(
        self, key: Key, relation: str, target: Key, *, signal: AbortSignal | None = None
    ) -> bool:
        """Links a row to a related row through a junction."""
        return await (await self._live()).link(key, relation, target, signal=signal)

    async def unlink(
        self, key: Key, relation: str, target: Key, *, signal: AbortSignal | None = None
    ) -> int:
        """Removes the junction rows pairing a row with a related row."""
        return await (await self._live()).unlink(key, relation, target, signal=signal)

    async def links(
        self,
        key: Key,
        relation: str,
        *,
        limit: int | None = None,
        signal: AbortSignal | None = None,
    ) -> list[Key]:
        """Lists the related keys a row is linked to."""
        return await (await self._live()).links(key, relation, limit=limit, signal=signal)


def served_managers(maps: RelationFile, resolver: DatabaseResolver) -> dict[str, ServedManager]:
    """One served relation manager per database id of a relations file."""
    return {id: ServedManager(id, tables, resolver) for id, tables in maps.items()}
