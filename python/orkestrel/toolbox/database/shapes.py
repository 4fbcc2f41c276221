"""The contract shapes of the database tool's call arguments: the advertised `parameters` and
the parser the handler reads every call through.
"""

from __future__ import annotations

from typing import Final, get_args

from orkestrel.contract import (
    ContractShape,
    LiteralShape,
    ObjectShape,
    StringShape,
    UnionShape,
    array_shape,
    boolean_shape,
    integer_shape,
    json_shape,
    literal_shape,
    number_shape,
    object_shape,
    optional_shape,
    record_shape,
    string_shape,
    union_shape,
)
from orkestrel.database import AggregateFunction, Operator
from orkestrel.toolbox.database.types import ColumnPrimitive


def _name(description: str | None = None) -> StringShape:
    if description is None:
        return string_shape(min=1)
    return string_shape(min=1, description=description)


column_primitive_shape: Final[LiteralShape] = literal_shape(
    list(get_args(ColumnPrimitive)),
    description="A column type: string, integer (whole numbers), number or boolean.",
)
"""Describes a `ColumnPrimitive` literal, the leaf `column_spec_shape` wraps."""

column_spec_shape: Final[UnionShape] = union_shape(
    column_primitive_shape,
    object_shape(
        {
            "primitive": column_primitive_shape,
            "optional": optional_shape(
                boolean_shape(description="True when a row may leave the column out.")
            ),
        },
        description="A column type, and whether a row may leave the column out.",
    ),
)
"""Describes a `ColumnSpec`: a bare `column_primitive_shape`, or `{primitive, optional}`."""

table_spec_shape: Final[ObjectShape] = record_shape(
    object_shape(
        {"columns": record_shape(column_spec_shape, description="Column name to column type.")},
        description="One table: its columns.",
    ),
    description="Table name to its columns.",
)
"""Describes a `TableSpec`: table name to `{columns}`, each column a `column_spec_shape`."""

single_key_shape: Final[UnionShape] = union_shape(
    string_shape(description="A key."), number_shape(description="A key.")
)
"""Describes a single row key (not a list): a string or a number."""

key_shape: Final[UnionShape] = union_shape(
    array_shape(single_key_shape, description="Many keys, answered in the same order."),
    string_shape(description="One key."),
    number_shape(description="One key."),
)
"""Describes one key value for the database tool: a string or number, or a list of them; the
list form resolves first, so a list argument is read as many keys rather than one.
"""

row_shape: Final[ObjectShape] = record_shape(
    json_shape(), description="A row: column name to value."
)
"""Describes a loose row: a flat object of column name to JSON value."""

rows_shape: Final[UnionShape] = union_shape(
    array_shape(row_shape, description="Many rows, written together or not at all."), row_shape
)
"""Describes one or many loose rows; the list form resolves first, so a list argument is read as
many rows rather than one.
"""

condition_shape: Final[ObjectShape] = object_shape(
    {
        "column": _name("The column the condition tests."),
        "operator": literal_shape(list(get_args(Operator)), description="How to test it."),
        "values": array_shape(
            json_shape(), description="The values to test against; always a list."
        ),
        "connector": optional_shape(
            literal_shape(
                ["and", "or"],
                description="How this condition joins the NEXT one (default and).",
            )
        ),
    },
    description="One condition.",
)
"""Describes one serialized condition: `values` is always a list, even for a one-value
operator.
"""

order_shape: Final[ObjectShape] = object_shape(
    {
        "column": _name("The column to sort by."),
        "direction": literal_shape(["ascending", "descending"], description="The direction."),
    },
    description="One sort term.",
)
"""Describes one sort term: a `column` to sort by and the `direction` to sort it in."""

query_shape: Final[ObjectShape] = object_shape(
    {
        "conditions": optional_shape(
            array_shape(condition_shape, description="Conditions, combined left to right.")
        ),
        "order": optional_shape(array_shape(order_shape, description="Sort terms, in priority.")),
        "limit": optional_shape(integer_shape(min=0, description="At most this many rows.")),
        "offset": optional_shape(integer_shape(min=0, description="Skip this many rows first.")),
    },
)
"""Describes the serialized query form: conditions, order, and pagination."""


def _operation(name: str, description: str, **fields: ContractShape) -> ObjectShape:
    return object_shape({"operation": literal_shape([name], description=description), **fields})


_IDENTITY: dict[str, ContractShape] = {"id": _name()}
_ROWS: dict[str, ContractShape] = {"id": _name(), "table": _name()}
_QUERY: dict[str, ContractShape] = {"query": optional_shape(query_shape)}

database_tool_shape: Final[UnionShape] = union_shape(
    _operation(
        "create",
        "Create a database.",
        **_IDENTITY,
        tables=table_spec_shape,
        driver=optional_shape(_name("Default memory.")),
        primary=optional_shape(
            record_shape(_name("The key column."), description="Table name to its key column.")
        ),
        indexes=optional_shape(
            record_shape(
                array_shape(array_shape(_name("A column."), min=1, description="An index.")),
                description="Table name to its indexes.",
            )
        ),
        version=optional_shape(number_shape()),
    ),
    _operation("tables", "List the tables.", **_IDENTITY),
    _operation("get", "Read rows by key.", **_ROWS, key=key_shape),
    _operation("records", "Read matching rows.", **_ROWS, **_QUERY),
    _operation("count", "Count matching rows.", **_ROWS, **_QUERY),
    _operation(
        "aggregate",
        "Aggregate a column over matching rows.",
        **_ROWS,
        function=literal_shape(list(get_args(AggregateFunction))),
        column=_name(),
        **_QUERY,
    ),
    _operation("add", "Insert new rows.", **_ROWS, row=rows_shape),
    _operation("set", "Insert or replace rows.", **_ROWS, row=rows_shape),
    _operation(
        "update",
        "Change some columns of rows by key.",
        **_ROWS,
        key=key_shape,
        changes=record_shape(json_shape(), description="Column name to new value."),
    ),
    _operation("remove", "Delete rows by key.", **_ROWS, key=key_shape),
    _operation("destroy", "Delete the database, its rows and its definition.", **_IDENTITY),
)
"""Describes the database tool's call arguments, discriminated by `operation` into `create`,
`tables`, `get`, `records`, `count`, `aggregate`, `add`, `set`, `update`, `remove` and
`destroy`.
"""
