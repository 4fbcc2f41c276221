"""Workflow functions from the toolbox's side: a registered tool as a function, and the
read-only registry of opaque functions and raw agents."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orkestrel.contract import ParseError, parse_json_value
from orkestrel.tool import ToolManagerInterface
from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.constants import WORKFLOW_TOOL_NAME
from orkestrel.toolbox.workflow.factories import create_workflow_tool
from orkestrel.toolbox.workflow.registry import compose_workflow_functions
from orkestrel.toolbox.workflow.types import WorkflowAgents, WorkflowLineage
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

    Both options are copied. A non-callable function, an agent or a pre-built `AgentFunction`
    passed as a function, an agent that is not one, or a function and an agent under one name
    raise `ToolboxError` (`TOOL`). Each agent is adapted by `create_agent_function` for this
    exact lineage, with `runner`, both options and `store` for its nested runs. The registry is a
    `MappingProxyType`: names such as `get` or `__class__` resolve only when registered.
    """
    return compose_workflow_functions(
        runner,
        lineage=lineage,
        functions=functions,
        agents=agents,
        store=store,
        tool=create_workflow_tool,
    )
