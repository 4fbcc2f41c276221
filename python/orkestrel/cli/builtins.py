"""The tool factories `orkestrel serve` and `orkestrel tools` build by default."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from orkestrel.cli.guards import changes_state
from orkestrel.cli.hints import annotate
from orkestrel.cli.toolbox import ToolboxContext, ToolFactory
from orkestrel.cli.workflow import workflow as served_workflow
from orkestrel.cli.workspace import (
    WorkspaceCaps,
    open_shared_workspace_tool,
    open_workspace_tool,
)
from orkestrel.database import create_database, create_sqlite_driver, create_sqlite_factory
from orkestrel.tool import ToolInterface
from orkestrel.toolbox import (
    DATABASE_TOOL_KEYS,
    RELATION_TOOL_MUTATIONS,
    DatabaseDefinitionStore,
    DatabaseResolver,
    DefinitionStoreInterface,
    create_database_tool,
    create_describe_tool,
    create_infer_tool,
    create_memory_definition_store,
    create_relation_tool,
)
from orkestrel.toolbox.database.database_store import DEFINITIONS_COLUMNS, DEFINITIONS_TABLE
from orkestrel.toolbox.hints import READS_STATE

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState

DEFINITIONS_FILE = "definitions.sqlite3"
"""The SQLite file under `--data` that keeps the database tool's definitions."""

DATABASES_DIRECTORY = "databases"
"""The folder under `--data` that keeps one SQLite file per database the tool creates."""


def builtin_factories(*, workflow: bool = False) -> dict[str, ToolFactory]:
    """Lists the built-in tool factories by name, in the order the toolbox lists them; the
    workflow tool comes last, and only when asked for."""
    factories: dict[str, ToolFactory] = {
        "infer": infer,
        "describe": describe,
        "database": database,
        "workspace": workspace,
    }
    if workflow:
        factories["workflow"] = served_workflow
    return factories


def infer(context: ToolboxContext) -> ToolInterface:
    """Builds the schema-inference tool."""
    return create_infer_tool()


def describe(context: ToolboxContext) -> ToolInterface:
    """Builds the tool that returns the full description of any tool of this toolbox."""
    return create_describe_tool(context.manager)


def workspace(context: ToolboxContext, caps: WorkspaceCaps | None = None) -> ToolInterface:
    """Builds the workspace tool over the files of `--root` (with `--database`, over the
    workspace that PostgreSQL keeps under the root folder's name), answering within `caps`."""
    if context.shared is not None:
        return open_shared_workspace_tool(context.root, context.readonly, context.shared, caps)
    return open_workspace_tool(context.root, context.readonly, context.data, caps)


def open_definitions(data: Path, readonly: bool) -> DefinitionStoreInterface:
    """Opens the definition store kept in `data`, read-only at the engine when asked; a
    read-only toolbox over a `data` that holds no definitions yet reads an empty store.

    Nothing touches the disk before the store's first use, and `data` must exist by then.
    """
    path = data / DEFINITIONS_FILE
    if readonly and not path.exists():
        return create_memory_definition_store()
    engine = create_database(
        tables={DEFINITIONS_TABLE: DEFINITIONS_COLUMNS},
        driver=create_sqlite_driver(path),
        readonly=readonly,
    )
    return DatabaseDefinitionStore(engine.table(DEFINITIONS_TABLE), engine)


def open_resolver(store: DefinitionStoreInterface, data: Path, readonly: bool) -> DatabaseResolver:
    """Builds the resolver that opens each database as its own SQLite file under `data`,
    whichever driver name its definition carries, read-only at the engine when asked."""
    files = create_sqlite_factory(data / DATABASES_DIRECTORY)
    return DatabaseResolver(
        None, {"sqlite": files, "memory": files}, None, store, readonly=readonly
    )


def open_shared_definitions(shared: SharedState, readonly: bool) -> DefinitionStoreInterface:
    """Opens the definition store every server on the `--database` PostgreSQL shares."""
    engine = create_database(
        tables={DEFINITIONS_TABLE: DEFINITIONS_COLUMNS}, driver=shared.driver(), readonly=readonly
    )
    return DatabaseDefinitionStore(engine.table(DEFINITIONS_TABLE), engine)


def open_shared_resolver(
    store: DefinitionStoreInterface, shared: SharedState, readonly: bool
) -> DatabaseResolver:
    """Builds the resolver that opens each database as its own schema of the `--database`
    PostgreSQL, whichever driver name its definition carries."""
    schemas = shared.databases()
    drivers = {"postgres": schemas, "sqlite": schemas, "memory": schemas}
    return DatabaseResolver(None, drivers, None, store, readonly=readonly)


def database(context: ToolboxContext, keys: int = DATABASE_TOOL_KEYS) -> list[ToolInterface]:
    """Builds the database tool over SQLite files and a definition store under `--data`,
    creating `--data` on the first call rather than when the toolbox is listed (with
    `--database`, over schemas of that PostgreSQL instead), answering at most `keys` keys for
    an `add` or `set` of many rows; with `--relations`, also the relation tool over the same
    databases."""
    shared = context.shared
    if shared is not None:
        store = open_shared_definitions(shared, context.readonly)
        resolver = open_shared_resolver(store, shared, context.readonly)
    else:
        store = open_definitions(context.data, context.readonly)
        resolver = open_resolver(store, context.data, context.readonly)
    closer = getattr(store, "close", None)
    if closer is not None:
        context.stack.push_async_callback(closer)
    context.stack.push_async_callback(resolver.close)
    tools: list[ToolInterface] = [
        create_database_tool(resolver=resolver, readonly=context.readonly, keys=keys)
    ]
    if context.relations is not None:
        # Deferred for start-up time: relations load only with `--relations`.
        from orkestrel.cli.relations import read_relations

        tools.append(relation(resolver, read_relations(context.relations), context.readonly))
    if shared is not None:
        return tools
    return [_on_disk(tool, context.data, context.readonly) for tool in tools]


def _on_disk(tool: ToolInterface, data: Path, readonly: bool) -> ToolInterface:
    async def execute(args: Mapping[str, Any], caller: Any = None) -> Any:
        if not readonly:
            await anyio.Path(data).mkdir(parents=True, exist_ok=True)
        return await tool.execute(args, caller)

    return annotate(tool, execute=execute)


def relation(resolver: DatabaseResolver, maps: Any, readonly: bool) -> ToolInterface:
    """Builds the relation tool over the databases `resolver` opens, one relation manager per
    database id of the relations file; read-only, it refuses `link` and `unlink` up front."""
    # Deferred for start-up time: relations load only with `--relations`.
    from orkestrel.cli.relations import served_managers

    tool = create_relation_tool(managers=served_managers(maps, resolver))
    if not readonly:
        return tool

    async def execute(args: Mapping[str, Any]) -> Any:
        changes_state(args, RELATION_TOOL_MUTATIONS, readonly=True)
        return await tool.execute(args)

    return annotate(tool, READS_STATE, execute)
