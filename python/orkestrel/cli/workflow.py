"""The served workflow tool: workflows whose steps are the other tools of the toolbox, with
their snapshots under `--data`, and whose steps may delegate to the served agent."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from orkestrel.cli.lineage import CallTree, depth_of, lineage_of, tree_of, under
from orkestrel.cli.toolbox import ToolboxContext
from orkestrel.database import create_database, create_sqlite_driver
from orkestrel.tool import Tool, ToolInterface, ToolManager, ToolManagerInterface
from orkestrel.toolbox import (
    WORKFLOW_TOOL_DESCRIPTION,
    WORKFLOW_TOOL_NAME,
    WorkflowLineage,
    create_tool_function,
    create_workflow_tool,
    extend_lineage,
    tag_workflow,
)
from orkestrel.workflow import (
    MAX_ANSWER_BYTES,
    WORKFLOWS_COLUMNS,
    WORKFLOWS_TABLE,
    DatabaseWorkflowStore,
    TaskControllerInterface,
    WorkflowDefinition,
    WorkflowFunction,
    create_workflow_runner,
)

WORKFLOWS_FILE = "workflows.sqlite3"
"""The SQLite file under `--data` that keeps the snapshot of every served workflow run."""

if TYPE_CHECKING:
    from orkestrel.cli.shared import SharedState

SERVED_WORKFLOW: WorkflowDefinition = {"id": "workflow", "name": "Workflow", "phases": []}
"""The definition the served tool wraps: an empty run, so a call must author its own steps."""

SERVED_DESCRIPTION = (
    f"{WORKFLOW_TOOL_DESCRIPTION}\n\nHere the behaviors are the other tools of this server, by "
    "name, and a step's input is that tool's arguments; the run's snapshot, with every tool's "
    "answer, is kept by the server."
)
"""The served tool's description: the workflow tool's, plus what a behavior is here."""


def open_workflow_store(data: Path, shared: SharedState | None = None) -> DatabaseWorkflowStore:
    """Opens the workflow store kept in `data` (or on the `--database` PostgreSQL); nothing
    touches the disk before its first use, and `data` must exist by then."""
    driver = shared.driver() if shared is not None else create_sqlite_driver(data / WORKFLOWS_FILE)
    engine = create_database(tables={WORKFLOWS_TABLE: WORKFLOWS_COLUMNS}, driver=driver)
    return DatabaseWorkflowStore(engine)


def delegation(
    manager: ToolManagerInterface,
    name: str,
    lineage: WorkflowLineage,
    tree: CallTree,
    depth: int = 0,
) -> WorkflowFunction:
    """The workflow function of the served agent tool `name`: it calls the tool under the lineage
    of the run the step is in, so that the workflows the sub-agent runs continue that chain (and
    are refused past its depth or on a cycle), and in the `tree` of the top-level call, whose
    budget bounds every agent of it, under the `depth` sub-agents above the run."""

    async def run(controller: TaskControllerInterface) -> Any:
        target = extend_lineage(lineage, tag_workflow(controller.task.phase.workflow.id))
        view = ToolManager()
        tool = manager.tool(name)
        if tool is not None:
            view.add(under(tool, target, tree, depth))
        return await create_tool_function(view, name)(controller)

    return run


def served_functions(
    manager: ToolManagerInterface,
    lineage: WorkflowLineage = (),
    delegate: str | None = None,
    tree: CallTree | None = None,
    depth: int = 0,
) -> dict[str, WorkflowFunction]:
    """Every tool of the toolbox but the workflow tool itself, as a workflow function; the
    `delegate` tool (the served agent) is called under the run's lineage, in `tree` (a fresh
    one unless given), under the `depth` sub-agents above the run."""
    shared = CallTree() if tree is None else tree
    return {
        tool.name: (
            delegation(manager, tool.name, lineage, shared, depth)
            if tool.name == delegate
            else create_tool_function(manager, tool.name)
        )
        for tool in manager.tools()
        if tool.name != WORKFLOW_TOOL_NAME
    }


def workflow(
    context: ToolboxContext,
    *,
    delegate: str | None = None,
    max_answer_bytes: int = MAX_ANSWER_BYTES,
) -> ToolInterface:
    """Builds the workflow tool over the toolbox's other tools, read when each call runs, with
    its snapshots in `--data`; under `--readonly` nothing is stored. The step answers of one run
    may add up to `max_answer_bytes` of JSON (`--workflow-answer-bytes`).

    `delegate` names the served agent tool: a step that calls it runs its sub-agent under the
    step's lineage, and a call that the sub-agent makes back to this tool continues it.
    """
    store = None if context.readonly else open_workflow_store(context.data, context.shared)
    if store is not None:
        context.stack.push_async_callback(store.close)
    runner = create_workflow_runner(max_answer_bytes=max_answer_bytes)
    manager, data = context.manager, context.data
    advertised = create_workflow_tool(SERVED_WORKFLOW, runner)

    async def execute(args: Mapping[str, Any], caller: Any = None) -> Any:
        lineage = lineage_of(caller)
        if store is not None and context.shared is None:
            await anyio.Path(data).mkdir(parents=True, exist_ok=True)
        tool = create_workflow_tool(
            SERVED_WORKFLOW,
            runner,
            lineage=lineage,
            functions=served_functions(
                manager, lineage, delegate, tree_of(caller), depth_of(caller)
            ),
            store=store,
        )
        return await tool.execute(args, caller)

    return Tool(
        name=advertised.name,
        description=SERVED_DESCRIPTION,
        summary=advertised.summary,
        parameters=advertised.parameters,
        annotations=advertised.annotations,
        execute=execute,
        returns=getattr(advertised, "returns", None),
    )
