"""Total guards for the database tool's untrusted inputs: the column DSL and a persisted
definition read back from a store.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard, get_args

from orkestrel.toolbox.database.types import ColumnPrimitive, ColumnSpec, DatabaseDefinition

_PRIMITIVES = frozenset(get_args(ColumnPrimitive))
_DEFINITION_KEYS = frozenset({"id", "driver", "tables", "primary", "indexes", "version"})


def is_column_primitive(value: Any) -> TypeGuard[ColumnPrimitive]:
    """Narrows an unknown value to a `ColumnPrimitive`."""
    return type(value) is str and value in _PRIMITIVES


def is_column_spec(value: Any) -> TypeGuard[ColumnSpec]:
    """Narrows an unknown value to a `ColumnSpec`."""
    if is_column_primitive(value):
        return True
    try:
        return (
            type(value) is dict
            and set(value) <= {"primitive", "optional"}
            and is_column_primitive(value.get("primitive"))
            and type(value.get("optional", False)) is bool
        )
    except Exception:
        return False


def _is_name(value: Any) -> bool:
    return type(value) is str and value != ""


def _is_tables(value: Any) -> bool:
    if type(value) is not dict:
        return False
    for name, table in value.items():
        if not _is_name(name) or type(table) is not dict or set(table) != {"columns"}:
            return False
        columns = table["columns"]
        if type(columns) is not dict:
            return False
        if not all(_is_name(c) and is_column_spec(s) for c, s in columns.items()):
            return False
    return True


def _is_indexes(value: Any) -> bool:
    if type(value) is not dict:
        return False
    for name, groups in value.items():
        if not _is_name(name) or type(groups) is not list:
            return False
        for group in groups:
            if type(group) is not list or not group or not all(_is_name(c) for c in group):
                return False
    return True


def _is_definition(value: Any) -> bool:
    if type(value) is not dict or not set(value) <= _DEFINITION_KEYS:
        return False
    if not (_is_name(value.get("id")) and _is_name(value.get("driver"))):
        return False
    if not _is_tables(value.get("tables")):
        return False
    if "primary" in value:
        primary = value["primary"]
        if type(primary) is not dict or not all(
            _is_name(k) and _is_name(v) for k, v in primary.items()
        ):
            return False
    if "indexes" in value and not _is_indexes(value["indexes"]):
        return False
    if "version" in value:
        version = value["version"]
        if type(version) not in (int, float) or not math.isfinite(version):
            return False
    return True


def is_database_definition(value: Any) -> TypeGuard[DatabaseDefinition]:
    """Narrows an unknown value to a `DatabaseDefinition`: a non-empty `id` and `driver`, a
    `tables` record whose every value is `{columns: record of valid ColumnSpec}`, plus optional
    `primary`, `indexes`, and finite `version` schema configuration.

    It never raises; unknown fields, look-alike mappings and anything unreadable are refused.
    """
    try:
        return _is_definition(value)
    except Exception:
        return False
