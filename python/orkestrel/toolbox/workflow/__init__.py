"""The workflow tool: author a whole workflow in one call and run it, with the lineage and
registry helpers that keep nested runs finite and the adapter that runs a live agent as a step."""

from orkestrel.toolbox.workflow.agent_function import AgentFunction, is_agent_function
from orkestrel.toolbox.workflow.agents import create_agent_function
from orkestrel.toolbox.workflow.constants import (
    MAX_FAILURE_MESSAGE,
    MAX_RUN_PAGE,
    MAX_WORKFLOW_CHAIN,
    MAX_WORKFLOW_FAILURES,
    MAX_WORKFLOW_TASKS,
    WORKFLOW_TOOL_DESCRIPTION,
    WORKFLOW_TOOL_FLAT_EXAMPLE,
    WORKFLOW_TOOL_NAME,
    WORKFLOW_TOOL_NESTED_EXAMPLE,
    WORKFLOW_TOOL_SUMMARY,
)
from orkestrel.toolbox.workflow.drafts import (
    complete_draft,
    complete_phase_draft,
    complete_task_draft,
    create_workflow_draft_contract,
    expand_steps,
    summarize_workflow,
)
from orkestrel.toolbox.workflow.factories import create_workflow_tool
from orkestrel.toolbox.workflow.functions import create_tool_function, create_workflow_functions
from orkestrel.toolbox.workflow.lineage import (
    derive_workflow_depth,
    extend_lineage,
    is_workflow_lineage,
    normalize_lineage,
    tag_agent,
    tag_workflow,
)
from orkestrel.toolbox.workflow.shapes import (
    phase_draft_shape,
    step_shape,
    task_draft_shape,
    workflow_draft_shape,
    workflow_steps_shape,
)
from orkestrel.toolbox.workflow.types import (
    AgentFunctionOptions,
    PhaseDraft,
    TaskDraft,
    WorkflowAgents,
    WorkflowDraft,
    WorkflowLineage,
    WorkflowStep,
    WorkflowSteps,
    WorkflowToolFailure,
    WorkflowToolOptions,
    WorkflowToolResult,
)

__all__ = [
    "MAX_FAILURE_MESSAGE",
    "MAX_RUN_PAGE",
    "MAX_WORKFLOW_CHAIN",
    "MAX_WORKFLOW_FAILURES",
    "MAX_WORKFLOW_TASKS",
    "WORKFLOW_TOOL_DESCRIPTION",
    "WORKFLOW_TOOL_FLAT_EXAMPLE",
    "WORKFLOW_TOOL_NAME",
    "WORKFLOW_TOOL_NESTED_EXAMPLE",
    "WORKFLOW_TOOL_SUMMARY",
    "AgentFunction",
    "AgentFunctionOptions",
    "PhaseDraft",
    "TaskDraft",
    "WorkflowAgents",
    "WorkflowDraft",
    "WorkflowLineage",
    "WorkflowStep",
    "WorkflowSteps",
    "WorkflowToolFailure",
    "WorkflowToolOptions",
    "WorkflowToolResult",
    "complete_draft",
    "complete_phase_draft",
    "complete_task_draft",
    "create_agent_function",
    "create_tool_function",
    "create_workflow_draft_contract",
    "create_workflow_functions",
    "create_workflow_tool",
    "derive_workflow_depth",
    "expand_steps",
    "extend_lineage",
    "is_agent_function",
    "is_workflow_lineage",
    "normalize_lineage",
    "phase_draft_shape",
    "step_shape",
    "summarize_workflow",
    "tag_agent",
    "tag_workflow",
    "task_draft_shape",
    "workflow_draft_shape",
    "workflow_steps_shape",
]
