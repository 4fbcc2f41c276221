"""The column DSL compiled into the `TableMap` a `create_database` call accepts."""

from __future__ import annotations

from orkestrel.database import Column, TableMap
from orkestrel.toolbox.database.types import ColumnPrimitive, ColumnSpec, TableSpec


def compile_column_primitive(primitive: ColumnPrimitive) -> Column:
    """Compiles one `ColumnPrimitive` into its required `Column`, the leaf `compile_column`
    wraps.
    """
    return Column(primitive)


def compile_column(spec: ColumnSpec) -> Column:
    """Compiles one `ColumnSpec` into its `Column`, the per-column leaf `expand_tables` maps
    over.
    """
    if isinstance(spec, str):
        return compile_column_primitive(spec)
    return Column(spec["primitive"], optional=spec.get("optional", False) is True)


def expand_tables(spec: TableSpec) -> TableMap:
    """Compiles a `TableSpec` into the `TableMap` it configures: each `ColumnSpec` becomes the
    `Column` of its primitive, optional when it declares `optional: true`.
    """
    return {
        table: {name: compile_column(column) for name, column in entry["columns"].items()}
        for table, entry in spec.items()
    }
