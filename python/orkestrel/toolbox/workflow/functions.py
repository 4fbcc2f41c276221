"""Workflow functions from the toolbox's side: a registered tool as a function, and the
read-only registry of opaque functions and raw agents."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from orkestrel.contract import ParseError, parse_json_value
from orkestrel.tool import ToolManagerInterface
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.agents import adapt_agent, is_agent_adapter
from orkestrel.toolbox.workflow.constants import WORKFLOW_TOOL_NAME
from orkestrel.toolbox.workflow.lineage import WORKFLOW_TAG, normalize_lineage
from orkestrel.toolbox.workflow.types import WorkflowAgent, WorkflowAgents, WorkflowLineage
from orkestrel.workflow import (
    TaskControllerInterface,
    WorkflowFunction,
    WorkflowFunctions,
    WorkflowRunnerInterface,
    WorkflowStoreInterface,
)


def create_tool_function(tools: ToolManagerInterface, name: str) -> WorkflowFunction:
    """Wraps a registered tool as a workflow function: each call looks the tool up by `name`,
    runs it with the task's input and returns its JSON value.

    The live workflow tool cannot be wrapped. A tool that is not registered when the task runs,
    or that returns a value that is not JSON, raises `ToolboxError` (`TOOL`); the tool's own
    exceptions pass through unchanged.
    """
    if name == WORKFLOW_TOOL_NAME:
        raise ToolboxError(
            "TOOL", f"tool '{WORKFLOW_TOOL_NAME}' is reserved for live workflows", {"tool": name}
        )

    async def run(controller: TaskControllerInterface) -> Any:
        tool = tools.tool(name)
        if tool is None:
            raise ToolboxError("TOOL", f"tool '{name}' is not registered", {"tool": name})
        value = await tool.execute(controller.input)
        try:
            return parse_json_value(value)
        except ParseError:
            raise ToolboxError(
                "TOOL", f"tool '{name}' returned a non-JSON value", {"tool": name}
            ) from None

    run.__name__ = run.__qualname__ = f"tool_function[{name}]"
    return run


def snapshot_registry(option: str, value: Mapping[str, Any] | None) -> dict[str, Any]:
    """A shallow copy of a registry option, or `TOOL` when it is not a readable mapping with
    string keys."""
    if value is None:
        return {}
    try:
        copied = dict(value.items()) if isinstance(value, Mapping) else None
    except Exception:
        copied = None
    if copied is None:
        raise ToolboxError("TOOL", f"workflow {option} must be a mapping of name to value")
    for key in copied:
        if type(key) is not str or not key:
            raise ToolboxError(
                "TOOL", f"workflow {option} names must be non-empty strings", {"name": repr(key)}
            )
    return copied


def create_workflow_functions(
    runner: WorkflowRunnerInterface,
    *,
    lineage: WorkflowLineage | None = None,
    functions: WorkflowFunctions | None = None,
    agents: WorkflowAgents | None = None,
    store: WorkflowStoreInterface | None = None,
) -> Mapping[str, WorkflowFunction]:
    """Composes opaque host functions and raw agents into one read-only workflow registry for
    the workflow `lineage` ends with.

    Both options are copied. A non-callable function, a pre-built agent adapter passed as a
    function, or a function and an agent under one name raise `ToolboxError` (`TOOL`). Each agent
    is adapted for this exact lineage. The registry is a `MappingProxyType`: names such as `get`
    or `__class__` resolve only when registered.
    """
    current = normalize_lineage(lineage or ())
    if current and not current[-1].startswith(WORKFLOW_TAG):
        raise ToolboxError(
            "TOOL",
            "workflow functions lineage must end with a workflow tag",
            {"lineage": list(current)},
        )
    leaves = snapshot_registry("functions", functions)
    crew: dict[str, WorkflowAgent] = snapshot_registry("agents", agents)
    registry: dict[str, WorkflowFunction] = {}
    for name, function in leaves.items():
        if not callable(function):
            raise ToolboxError(
                "TOOL", f"workflow function '{name}' is not callable", {"function": name}
            )
        if is_agent_adapter(function):
            raise ToolboxError(
                "TOOL",
                f"agent function '{name}' must be supplied through agents",
                {"function": name},
            )
        registry[name] = function
    for name, agent in crew.items():
        if name in registry:
            raise ToolboxError(
                "TOOL", f"workflow function '{name}' collides with an agent", {"function": name}
            )
        registry[name] = adapt_agent(
            name,
            agent,
            runner=runner,
            lineage=current,
            functions=MappingProxyType(leaves),
            agents=MappingProxyType(crew),
            store=store,
        )
    return MappingProxyType(registry)
