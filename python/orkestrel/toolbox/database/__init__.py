"""The database tool: databases created, queried and edited through one `operation`-keyed call,
with their definitions kept in a pluggable store.
"""

from orkestrel.toolbox.database.compilers import (
    compile_column,
    compile_column_primitive,
    expand_tables,
)
from orkestrel.toolbox.database.constants import (
    DATABASE_TOOL_DESCRIPTION,
    DATABASE_TOOL_KEYS,
    DATABASE_TOOL_LIMIT,
    DATABASE_TOOL_MUTATIONS,
    DATABASE_TOOL_NAME,
    DATABASE_TOOL_SIZE,
    DATABASE_TOOL_SUMMARY,
)
from orkestrel.toolbox.database.database_store import DatabaseDefinitionStore
from orkestrel.toolbox.database.factories import (
    create_database_definition_store,
    create_database_tool,
    create_memory_definition_store,
)
from orkestrel.toolbox.database.helpers import (
    clamp_query,
    fit_records,
    infer_database_code,
    normalize_query,
    resolve_limit,
)
from orkestrel.toolbox.database.memory_store import MemoryDefinitionStore
from orkestrel.toolbox.database.resolver import DatabaseResolver
from orkestrel.toolbox.database.shapes import (
    column_primitive_shape,
    column_spec_shape,
    condition_shape,
    database_tool_shape,
    key_shape,
    order_shape,
    query_shape,
    row_shape,
    rows_shape,
    single_key_shape,
    table_spec_shape,
)
from orkestrel.toolbox.database.tool import DatabaseTool
from orkestrel.toolbox.database.types import (
    ClampedQuery,
    ColumnObject,
    ColumnPrimitive,
    ColumnSpec,
    DatabaseCondition,
    DatabaseDefinition,
    DatabaseDefinitionRow,
    DatabaseOperation,
    DatabaseOrder,
    DatabaseQueryInput,
    DatabaseToolOptions,
    DefinitionStoreInterface,
    RecordsResult,
    TableColumns,
    TableSpec,
)
from orkestrel.toolbox.database.validators import (
    is_column_primitive,
    is_column_spec,
    is_database_definition,
)

__all__ = [
    "DATABASE_TOOL_DESCRIPTION",
    "DATABASE_TOOL_KEYS",
    "DATABASE_TOOL_LIMIT",
    "DATABASE_TOOL_MUTATIONS",
    "DATABASE_TOOL_NAME",
    "DATABASE_TOOL_SIZE",
    "DATABASE_TOOL_SUMMARY",
    "ClampedQuery",
    "ColumnObject",
    "ColumnPrimitive",
    "ColumnSpec",
    "DatabaseCondition",
    "DatabaseDefinition",
    "DatabaseDefinitionRow",
    "DatabaseDefinitionStore",
    "DatabaseOperation",
    "DatabaseOrder",
    "DatabaseQueryInput",
    "DatabaseResolver",
    "DatabaseTool",
    "DatabaseToolOptions",
    "DefinitionStoreInterface",
    "MemoryDefinitionStore",
    "RecordsResult",
    "TableColumns",
    "TableSpec",
    "clamp_query",
    "column_primitive_shape",
    "column_spec_shape",
    "compile_column",
    "compile_column_primitive",
    "condition_shape",
    "create_database_definition_store",
    "create_database_tool",
    "create_memory_definition_store",
    "database_tool_shape",
    "expand_tables",
    "fit_records",
    "infer_database_code",
    "is_column_primitive",
    "is_column_spec",
    "is_database_definition",
    "key_shape",
    "normalize_query",
    "order_shape",
    "query_shape",
    "resolve_limit",
    "row_shape",
    "rows_shape",
    "single_key_shape",
    "table_spec_shape",
]
