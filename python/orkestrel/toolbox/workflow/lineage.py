"""Lineage: the alternating chain of workflow and agent tags a nested run carries, from which
cycles and depth are read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard

from orkestrel.toolbox.errors import ToolboxError
from orkestrel.toolbox.workflow.types import WorkflowLineage

WORKFLOW_TAG = "workflow:"
AGENT_TAG = "agent:"


def tag_workflow(id: str) -> str:
    """Returns the ancestry tag of a workflow in a run chain, `workflow:<id>`."""
    return WORKFLOW_TAG + id


def tag_agent(name: str) -> str:
    """Returns the ancestry tag of an agent in a run chain, `agent:<name>`."""
    return AGENT_TAG + name


def _valid(tags: tuple[Any, ...]) -> bool:
    seen: set[str] = set()
    for index, tag in enumerate(tags):
        prefix = AGENT_TAG if index % 2 else WORKFLOW_TAG
        if type(tag) is not str or len(tag) <= len(prefix) or not tag.startswith(prefix):
            return False
        if tag in seen:
            return False
        seen.add(tag)
    return True


def is_workflow_lineage(value: Any) -> TypeGuard[WorkflowLineage]:
    """Narrows an unknown value to a valid workflow lineage: a list or tuple of unique,
    non-empty tags alternating `workflow:` (first) and `agent:`; total on any input."""
    try:
        return isinstance(value, list | tuple) and _valid(tuple(value))
    except Exception:
        return False


def normalize_lineage(lineage: Sequence[str] = ()) -> WorkflowLineage:
    """Returns the canonical workflow lineage, validated, copied and frozen as a tuple, or
    raises `ToolboxError` (`TOOL`)."""
    try:
        tags = tuple(lineage) if isinstance(lineage, list | tuple) else None
    except Exception:
        tags = None
    if tags is None or not _valid(tags):
        raise ToolboxError("TOOL", "workflow lineage must alternate unique workflow and agent tags")
    return tags


def extend_lineage(lineage: Sequence[str], tag: str) -> WorkflowLineage:
    """Appends one tag to a workflow lineage and returns a frozen copy."""
    return normalize_lineage((*normalize_lineage(lineage), tag))


def derive_workflow_depth(lineage: Sequence[str]) -> int:
    """Derives the zero-based workflow nesting depth of a valid lineage: its workflow tags
    minus one, and `0` for an empty lineage."""
    tags = normalize_lineage(lineage)
    return max(0, (len(tags) + 1) // 2 - 1)
