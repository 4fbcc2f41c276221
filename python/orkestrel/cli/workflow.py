"""The served workflow tool: workflows whose steps are the other tools of the toolbox, with
their snapshots under `--data`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio

from orkestrel.cli.toolbox import ToolboxContext
from orkestrel.database import create_database, create_sqlite_driver
from orkestrel.tool import Tool, ToolInterface, ToolManagerInterface
from orkestrel.toolbox import (
    WORKFLOW_TOOL_DESCRIPTION,
    WORKFLOW_TOOL_NAME,
    create_tool_function,
    create_workflow_tool,
)
from orkestrel.workflow import (
    WORKFLOWS_COLUMNS,
    WORKFLOWS_TABLE,
    DatabaseWorkflowStore,
    WorkflowDefinition,
    WorkflowFunction,
    create_workflow_runner,
)

WORKFLOWS_FILE = "workflows.sqlite3"
"""The SQLite file under `--data` that keeps the snapshot of every served workflow run."""

SERVED_WORKFLOW: WorkflowDefinition = {"id": "workflow", "name": "Workflow", "phases": []}
"""The definition the served tool wraps: an empty run, so a call must author its own steps."""

SERVED_DESCRIPTION = (
    f"{WORKFLOW_TOOL_DESCRIPTION}\n\nHere the behaviors are the other tools of this server, by "
    "name, and a step's input is that tool's arguments; the run's snapshot, with every tool's "
    "answer, is kept by the server."
)
"""The served tool's description: the workflow tool's, plus what a behavior is here."""


def open_workflow_store(data: Path) -> DatabaseWorkflowStore:
    """Opens the workflow store kept in `data`; nothing touches the disk before its first use,
    and `data` must exist by then."""
    engine = create_database(
        tables={WORKFLOWS_TABLE: WORKFLOWS_COLUMNS},
        driver=create_sqlite_driver(data / WORKFLOWS_FILE),
    )
    return DatabaseWorkflowStore(engine.table(WORKFLOWS_TABLE), engine)


def served_functions(manager: ToolManagerInterface) -> dict[str, WorkflowFunction]:
    """Every tool of the toolbox but the workflow tool itself, as a workflow function."""
    return {
        tool.name: create_tool_function(manager, tool.name)
        for tool in manager.tools()
        if tool.name != WORKFLOW_TOOL_NAME
    }


def workflow(context: ToolboxContext) -> ToolInterface:
    """Builds the workflow tool over the toolbox's other tools, read when each call runs, with
    its snapshots in `--data`; under `--readonly` nothing is stored."""
    store = None if context.readonly else open_workflow_store(context.data)
    if store is not None:
        context.stack.push_async_callback(store.close)
    runner = create_workflow_runner()
    manager, data = context.manager, context.data
    advertised = create_workflow_tool(SERVED_WORKFLOW, runner)

    async def execute(args: Mapping[str, Any]) -> Any:
        if store is not None:
            await anyio.Path(data).mkdir(parents=True, exist_ok=True)
        tool = create_workflow_tool(
            SERVED_WORKFLOW, runner, functions=served_functions(manager), store=store
        )
        return await tool.execute(args)

    return Tool(
        name=advertised.name,
        description=SERVED_DESCRIPTION,
        summary=advertised.summary,
        parameters=advertised.parameters,
        annotations=advertised.annotations,
        execute=execute,
    )
