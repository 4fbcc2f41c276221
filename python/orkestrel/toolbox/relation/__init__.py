"""The relation tool: rows loaded with their related rows, and many-to-many links edited,
through one `operation`-keyed call over live relation managers.
"""

from orkestrel.toolbox.relation.constants import (
    RELATION_TOOL_DEPTH,
    RELATION_TOOL_DESCRIPTION,
    RELATION_TOOL_LIMIT,
    RELATION_TOOL_MUTATIONS,
    RELATION_TOOL_NAME,
    RELATION_TOOL_SUMMARY,
)
from orkestrel.toolbox.relation.factories import create_relation_tool
from orkestrel.toolbox.relation.helpers import (
    expand_include,
    infer_relation_code,
    resolve_relation_manager,
    resolve_relation_model,
)
from orkestrel.toolbox.relation.shapes import include_shape, manager_shape, relation_tool_shape
from orkestrel.toolbox.relation.types import LinksResult, RelationOperation, RelationToolOptions

__all__ = [
    "RELATION_TOOL_DEPTH",
    "RELATION_TOOL_DESCRIPTION",
    "RELATION_TOOL_LIMIT",
    "RELATION_TOOL_MUTATIONS",
    "RELATION_TOOL_NAME",
    "RELATION_TOOL_SUMMARY",
    "LinksResult",
    "RelationOperation",
    "RelationToolOptions",
    "create_relation_tool",
    "expand_include",
    "include_shape",
    "infer_relation_code",
    "manager_shape",
    "relation_tool_shape",
    "resolve_relation_manager",
    "resolve_relation_model",
]
