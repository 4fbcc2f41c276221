"""`create_workflow_tool`: a wrapped workflow a model can run as is, or replace with a tree it
authors in one call."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from orkestrel.contract import (
    ContractError,
    ParseError,
    clone_json_record,
    clone_json_value,
    create_contract,
    schema_to_parameters,
)
from orkestrel.tool import ProgressPacer, ToolContext, ToolInterface, create_tool
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.hints import RUNS
from orkestrel.toolbox.unknown_keys import refuse_unknown_keys
from orkestrel.toolbox.workflow.constants import (
    MAX_RUN_PAGE,
    MAX_WORKFLOW_CHAIN,
    MAX_WORKFLOW_TASKS,
    WORKFLOW_TOOL_DESCRIPTION,
    WORKFLOW_TOOL_NAME,
    WORKFLOW_TOOL_SUMMARY,
)
from orkestrel.toolbox.workflow.drafts import (
    complete_draft,
    create_workflow_draft_contract,
    expand_steps,
    summarize_workflow,
)
from orkestrel.toolbox.workflow.helpers import run_after_lease, snapshot_registry
from orkestrel.toolbox.workflow.lineage import (
    AGENT_TAG,
    derive_workflow_depth,
    extend_lineage,
    normalize_lineage,
    tag_workflow,
)
from orkestrel.toolbox.workflow.registry import compose_workflow_functions
from orkestrel.toolbox.workflow.reports import log_workflow
from orkestrel.toolbox.workflow.runs import read_run
from orkestrel.toolbox.workflow.shapes import (
    run_read_shape,
    workflow_call_shape,
    workflow_steps_shape,
)
from orkestrel.toolbox.workflow.types import (
    WorkflowAgents,
    WorkflowLineage,
    WorkflowRunPage,
    WorkflowToolAnswer,
    WorkflowToolResult,
)
from orkestrel.workflow import (
    WorkflowFunctions,
    WorkflowRunnerInterface,
    WorkflowStoreInterface,
    create_workflow_contract,
)
from orkestrel.workflow.helpers import clone_reason

_MALFORMED = "malformed workflow definition"
_PREFIX = "parse: the value does not satisfy the contract: "


def _malformed(
    workflow: Any, faults: list[Any] | None = None, reason: str | None = None
) -> ToolboxError:
    context: dict[str, Any] = {"workflow": workflow}
    if reason is not None:
        context["reason"] = reason
        return ToolboxError("TOOL", f"{_MALFORMED}: {reason}", context)
    if not faults:
        return ToolboxError("TOOL", _MALFORMED, context)
    context["faults"] = faults[:10]
    detail = str(ParseError(faults)).removeprefix(_PREFIX)
    return ToolboxError("TOOL", f"{_MALFORMED}: {detail}", context)


def _described(names: list[str]) -> str:
    if not names:
        return WORKFLOW_TOOL_DESCRIPTION
    return f"{WORKFLOW_TOOL_DESCRIPTION}\n\nRegistered behaviors: {', '.join(sorted(names))}."


def create_workflow_tool(
    definition: Mapping[str, Any],
    runner: WorkflowRunnerInterface,
    *,
    lineage: WorkflowLineage | None = None,
    functions: WorkflowFunctions | None = None,
    agents: WorkflowAgents | None = None,
    store: WorkflowStoreInterface | None = None,
) -> ToolInterface:
    """Wraps a `WorkflowDefinition` as an LLM-callable tool that advertises the flat
    `{name?, steps}` form as its parameters and runs what a call authors through `runner`.

    A call with no arguments runs the wrapped definition; `steps` is expanded; anything else is
    read as a nested draft and completed. Every path must pass the strict workflow contract and
    hold at most `MAX_WORKFLOW_TASKS` tasks, else `ToolboxError` (`TOOL`) before anything runs;
    a cycle or a chain deeper than
    `MAX_WORKFLOW_CHAIN` is `DEPTH`. The registry built from `functions` and `agents` for the
    target's lineage and the `store` go to `runner.execute`, whose errors pass through, but for
    one: a call whose caller resumes an interrupted run (`ToolContext.resume`) waits out the
    lease that run's runner still holds rather than fail with `LEASE`. The answer is
    `summarize_workflow` of the result.
    """
    current = normalize_lineage(lineage or ())
    if current and not current[-1].startswith(AGENT_TAG):
        raise ToolboxError(
            "TOOL", "workflow tool lineage must end with an agent tag", {"lineage": list(current)}
        )
    strict = create_workflow_contract()
    try:
        wrapped: dict[str, Any] = clone_json_value(definition)
    except ContractError as error:
        raise _malformed(None, reason=clone_reason(error)) from None
    if not strict.is_valid(wrapped):
        id = wrapped.get("id") if isinstance(wrapped, dict) else None
        raise _malformed(id, strict.explain(wrapped))
    leaves = (
        None if functions is None else MappingProxyType(snapshot_registry("functions", functions))
    )
    crew = None if agents is None else MappingProxyType(snapshot_registry("agents", agents))
    steps = create_contract(workflow_steps_shape)
    drafts = create_workflow_draft_contract()
    reads = create_contract(run_read_shape)
    identity = wrapped["id"]

    async def read(owned: dict[str, Any]) -> WorkflowRunPage:
        refuse_unknown_keys(reads.schema, owned, _MALFORMED, {"workflow": identity})
        try:
            page = reads.parse(owned)
        except ParseError as error:
            raise _malformed(identity, error.faults) from None
        run = page["run"]
        if store is None:
            raise ToolboxError("TOOL", "no runs are kept here, so none can be read", {"run": run})
        snapshot = await store.get(run)
        if snapshot is None:
            raise ToolboxError("TOOL", f"run: no stored run '{run}'", {"run": run})
        return read_run(snapshot, int(page.get("offset", 0)), int(page.get("limit", MAX_RUN_PAGE)))

    def author(owned: dict[str, Any]) -> Any:
        if not owned:
            return wrapped
        flat = "steps" in owned
        schema = (steps if flat else drafts).schema
        refuse_unknown_keys(schema, owned, _MALFORMED, {"workflow": identity})
        try:
            if flat:
                return expand_steps(steps.parse(owned))
            return complete_draft(drafts.parse(owned))
        except ParseError as error:
            raise _malformed(identity, error.faults) from None

    async def execute(
        args: Mapping[str, Any], caller: Any = None
    ) -> WorkflowToolResult | WorkflowRunPage:
        try:
            owned = clone_json_record(args)
        except ContractError as error:
            raise _malformed(identity, reason=clone_reason(error)) from None
        if "run" in owned:
            return await read(owned)
        target = author(owned)
        if not strict.is_valid(target):
            raise _malformed(identity, strict.explain(target))
        tasks = sum(len(phase["tasks"]) for phase in target["phases"])
        if tasks > MAX_WORKFLOW_TASKS:
            raise ToolboxError(
                "TOOL",
                f"a workflow may hold at most {MAX_WORKFLOW_TASKS} tasks, not {tasks}",
                {"workflow": identity, "tasks": tasks, "max": MAX_WORKFLOW_TASKS},
            )
        id = target["id"]
        tag = tag_workflow(id)
        if tag in current:
            raise ToolboxError(
                "DEPTH",
                f"workflow '{id}' is already an ancestor (cycle)",
                {"workflow": id, "lineage": list(current)},
            )
        nested = extend_lineage(current, tag)
        depth = derive_workflow_depth(nested)
        if depth > MAX_WORKFLOW_CHAIN:
            raise ToolboxError(
                "DEPTH",
                f"nested workflow exceeds max depth {MAX_WORKFLOW_CHAIN}",
                {"workflow": id, "depth": depth, "max": MAX_WORKFLOW_CHAIN},
            )
        registry = None
        if leaves is not None or crew is not None:
            registry = compose_workflow_functions(
                runner,
                lineage=nested,
                functions=leaves,
                agents=crew,
                store=store,
                tool=create_workflow_tool,
            )
        progress = None
        if isinstance(caller, ToolContext):
            progress = ProgressPacer(caller).report
        resume = store is not None and isinstance(caller, ToolContext) and caller.resume
        result = await run_after_lease(
            lambda signal: runner.execute(
                target,
                functions=registry,
                store=store,
                progress=progress,
                signal=signal,
                resume=resume,
            ),
            resume,
        )
        if isinstance(caller, ToolContext):
            await log_workflow(caller, result)
        return summarize_workflow(result)

    names = [*(leaves or {}), *(crew or {})]
    return create_tool(
        name=WORKFLOW_TOOL_NAME,
        description=_described(names),
        summary=WORKFLOW_TOOL_SUMMARY,
        parameters=schema_to_parameters(create_contract(workflow_call_shape).schema),
        annotations={**RUNS, "title": "Workflows"},
        execute=execute,
        returns=WorkflowToolAnswer,
    )
