"""Compiles the serialized query form into parameterised SQL for one table and one dialect.

Every value travels as a bound parameter; every identifier is checked against the table's
declared columns before it is quoted. Conditions fold strictly left to right, each one's
connector joining it to the next: `[A or, B and, C]` is `((A OR B) AND C)`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from orkestrel.contract.helpers import preview
from orkestrel.database.constants import (
    AGGREGATES,
    MAX_CONDITIONS,
    MAX_INTEGER,
    MAX_PATTERN_LENGTH,
    MAX_VALUES,
    OPERATORS,
)
from orkestrel.database.dialect import Dialect
from orkestrel.database.errors import DatabaseError
from orkestrel.database.helpers import parse_boolean, parse_number, parse_string
from orkestrel.database.schema import ColumnSchema, TableSchema

_QUERY_KEYS = frozenset({"conditions", "order", "limit", "offset"})
_CONDITION_KEYS = frozenset({"column", "operator", "values", "connector"})
_ORDER_KEYS = frozenset({"column", "direction"})
_ONE_VALUE = frozenset(
    {"equals", "not", "above", "below", "from", "to", "like", "glob", "starts", "ends"}
)
_RANGE = frozenset({"above", "below", "from", "to", "between"})
_TEXT = frozenset({"like", "glob", "starts", "ends"})
_NUMERIC = frozenset({"integer", "number"})
_OPERATORS = frozenset(OPERATORS)
_SIMPLE = {"equals": "=", "above": ">", "from": ">="}
_NULLABLE = {"not": "<>", "below": "<", "to": "<="}


@dataclass(frozen=True, slots=True)
class Statement:
    """One SQL statement and the values bound to its placeholders, in order."""

    sql: str
    params: list[Any]


@dataclass(frozen=True, slots=True)
class ReadQuery:
    """A checked query: its WHERE clause, ORDER BY clause, and paging."""

    where: Statement
    order: str
    limit: int | None
    offset: int | None


def _refuse(message: str, **context: Any) -> DatabaseError:
    return DatabaseError("VALIDATION", message, context or None)


def _closed_record(value: Any, keys: frozenset[str], what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _refuse(f"{what} must be an object")
    unknown = [key for key in value if key not in keys]
    if unknown:
        raise _refuse(f"{what} has unknown field {preview(unknown[0])}", field=preview(unknown[0]))
    return value


def _column(schema: TableSchema, name: Any, where: str) -> ColumnSchema:
    column = schema.lookup.get(name) if isinstance(name, str) else None
    if column is None:
        raise _refuse(
            f"{where}: table {schema.name!r} has no column {preview(name)}",
            table=schema.name,
            column=preview(name),
        )
    return column


def _page(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _refuse(f"{name} must be a non-negative integer, not {preview(value)}")
    if isinstance(value, float) and not value.is_integer():
        raise _refuse(f"{name} must be a non-negative integer, not {preview(value)}")
    if value < 0:
        raise _refuse(f"{name} must be a non-negative integer, not {preview(value)}")
    return min(int(value), MAX_INTEGER)


def _operand(column: ColumnSchema, value: Any, dialect: Dialect, where: str) -> Any:
    if column.type == "json":
        if column.column.parse(value) is None:
            raise _refuse(f"{where}: the value is not storable JSON", column=column.name)
        return dialect.encoder("json")(value)
    if column.type in _NUMERIC:
        parsed: Any = parse_number(value)
        if isinstance(parsed, int) and abs(parsed) > MAX_INTEGER:
            parsed = float(parsed)
    elif column.type == "boolean":
        parsed = parse_boolean(value)
    else:
        parsed = parse_string(value)
    if parsed is None:
        raise _refuse(
            f"{where}: {preview(value)} does not fit {column.type} column {column.name!r}",
            column=column.name,
        )
    return dialect.encoder(column.type)(parsed)


def _operands(
    column: ColumnSchema, values: Sequence[Any], dialect: Dialect, where: str
) -> list[Any]:
    """The present values of a membership list, coerced like `_operand`; plain strings for a
    string column and plain in-range integers for a numeric one bind as they are, which is what
    `_operand` would give them, without its per-value calls."""
    kind = column.type
    present: list[Any] = []
    if kind == "string":
        for value in values:
            if type(value) is str and "\x00" not in value:
                present.append(value)
            elif value is not None:
                present.append(_operand(column, value, dialect, where))
    elif kind in _NUMERIC:
        for value in values:
            if type(value) is int and -MAX_INTEGER <= value <= MAX_INTEGER:
                present.append(value)
            elif value is not None:
                present.append(_operand(column, value, dialect, where))
    else:
        present = [_operand(column, v, dialect, where) for v in values if v is not None]
    return present


def _membership(
    column: ColumnSchema,
    quoted: str,
    values: Sequence[Any],
    dialect: Dialect,
    where: str,
    negate: bool,
) -> tuple[str, list[Any]]:
    if len(values) > MAX_VALUES:
        raise _refuse(f"{where}: at most {MAX_VALUES} values are allowed")
    present = _operands(column, values, dialect, where)
    has_null = len(present) < len(values)
    marks = ", ".join(dialect.param(column.type) for _ in present)
    if not negate:
        if not present:
            return ("1 = 0" if not has_null else f"{quoted} IS NULL"), []
        test = f"{quoted} IN ({marks})"
        return (f"({test} OR {quoted} IS NULL)" if has_null else test), present
    if not present:
        return ("1 = 1" if not has_null else f"{quoted} IS NOT NULL"), []
    test = f"{quoted} NOT IN ({marks})"
    if has_null:
        return f"({test} AND {quoted} IS NOT NULL)", present
    return _or_absent(column, quoted, test), present


def _or_absent(column: ColumnSchema, quoted: str, test: str) -> str:
    """Adds absent cells to a test; a required column has none, so the test stays index-able."""
    return f"({test} OR {quoted} IS NULL)" if column.optional else test


def _pattern(column: ColumnSchema, value: Any, where: str, capped: bool) -> str:
    text = parse_string(value)
    if text is None:
        raise _refuse(f"{where}: the value must be a string")
    if capped and len(text) > MAX_PATTERN_LENGTH:
        raise _refuse(
            f"{where}: a pattern may be at most {MAX_PATTERN_LENGTH} characters long",
            column=column.name,
        )
    return text


def _condition(
    schema: TableSchema, dialect: Dialect, condition: Mapping[str, Any], where: str
) -> tuple[str, list[Any]]:
    column = _column(schema, condition.get("column"), where)
    operator = condition.get("operator")
    if operator not in _OPERATORS:
        raise _refuse(f"{where}: unknown operator {preview(operator)}", operator=preview(operator))
    values = condition.get("values")
    if not isinstance(values, list | tuple):
        raise _refuse(f"{where}: values must be a list")
    quoted = dialect.quote(column.name)
    if operator in ("absent", "present"):
        if values:
            raise _refuse(f"{where}: operator {operator!r} takes no values")
        return f"{quoted} IS {'NOT ' if operator == 'present' else ''}NULL", []
    if operator in ("any", "none"):
        return _membership(column, quoted, values, dialect, where, operator == "none")
    expected = 2 if operator == "between" else 1
    if len(values) != expected:
        raise _refuse(f"{where}: operator {operator!r} takes exactly {expected} value(s)")
    if operator in _TEXT:
        if column.type != "string":
            raise _refuse(
                f"{where}: operator {operator!r} needs a string column", column=column.name
            )
        text = _pattern(column, values[0], where, operator in ("like", "glob"))
        if operator == "like":
            return dialect.like(quoted), [text]
        if operator == "glob":
            return dialect.glob(quoted), [dialect.glob_pattern(text)]
        if not text:
            return f"{quoted} IS NOT NULL", []
        if operator == "starts":
            return dialect.starts(quoted), [len(text), text]
        return dialect.ends(quoted), [-len(text), text]
    if values[0] is None and operator in ("equals", "not"):
        return f"{quoted} IS {'NOT ' if operator == 'not' else ''}NULL", []
    if operator in _RANGE and column.type == "json":
        raise _refuse(f"{where}: operator {operator!r} cannot order json column {column.name!r}")
    if any(v is None for v in values):
        raise _refuse(f"{where}: operator {operator!r} needs non-null values")
    operands = [_operand(column, v, dialect, where) for v in values]
    mark = dialect.param(column.type)
    if operator in _SIMPLE:
        return f"{quoted} {_SIMPLE[operator]} {mark}", operands
    if operator == "between":
        return f"{quoted} BETWEEN {mark} AND {mark}", operands
    return _or_absent(column, quoted, f"{quoted} {_NULLABLE[operator]} {mark}"), operands


def compile_where(schema: TableSchema, dialect: Dialect, conditions: Any) -> Statement:
    """Compiles a list of conditions into a WHERE clause (empty when there are none)."""
    if conditions is None:
        return Statement("", [])
    if not isinstance(conditions, list | tuple):
        raise _refuse("conditions must be a list")
    if len(conditions) > MAX_CONDITIONS:
        raise _refuse(f"a query may carry at most {MAX_CONDITIONS} conditions")
    sql = ""
    params: list[Any] = []
    joiner = ""
    for index, raw in enumerate(conditions):
        where = f"condition {index}"
        condition = _closed_record(raw, _CONDITION_KEYS, where)
        connector = condition.get("connector")
        if connector not in (None, "and", "or"):
            raise _refuse(f"{where}: connector must be 'and' or 'or', not {preview(connector)}")
        part, values = _condition(schema, dialect, condition, where)
        sql = part if index == 0 else f"({sql} {joiner} {part})"
        params.extend(values)
        joiner = "OR" if connector == "or" else "AND"
    return Statement(f" WHERE {sql}" if sql else "", params)


def compile_order(schema: TableSchema, dialect: Dialect, order: Any) -> str:
    """Compiles sort terms into an ORDER BY clause that ends with the primary key, so ties and
    unordered reads come back in key order.
    """
    if order is None:
        order = []
    if not isinstance(order, list | tuple):
        raise _refuse("order must be a list")
    terms: list[str] = []
    seen: set[str] = set()
    for index, raw in enumerate(order):
        term = _closed_record(raw, _ORDER_KEYS, f"order {index}")
        column = _column(schema, term.get("column"), f"order {index}")
        direction = term.get("direction", "ascending")
        if direction not in ("ascending", "descending"):
            raise _refuse(f"order {index}: direction must be 'ascending' or 'descending'")
        if column.type == "json":
            raise _refuse(f"order {index}: json column {column.name!r} cannot be sorted")
        if column.name in seen:
            continue
        seen.add(column.name)
        suffix = "ASC NULLS FIRST" if direction == "ascending" else "DESC NULLS LAST"
        terms.append(f"{dialect.quote(column.name)} {suffix}")
    if schema.primary not in seen:
        terms.append(f"{dialect.quote(schema.primary)} ASC")
    return " ORDER BY " + ", ".join(terms)


def read_query(schema: TableSchema, dialect: Dialect, query: Any) -> ReadQuery:
    """Checks a query against the table and compiles its parts.

    Raises `DatabaseError` coded `VALIDATION` for an unknown field, column or operator, a wrong
    number of values, a value that does not fit its column, or bad paging.
    """
    if query is None:
        query = {}
    query = _closed_record(query, _QUERY_KEYS, "query")
    return ReadQuery(
        where=compile_where(schema, dialect, query.get("conditions")),
        order=compile_order(schema, dialect, query.get("order")),
        limit=_page(query.get("limit"), "limit"),
        offset=_page(query.get("offset"), "offset"),
    )


def select_all(schema: TableSchema, dialect: Dialect) -> str:
    """The head of a `records` read: every column of the table, in declared order."""
    columns = ", ".join(dialect.quote(c.name) for c in schema.columns)
    return f"SELECT {columns} FROM {dialect.table(schema.name)}"


def compile_records(
    schema: TableSchema, dialect: Dialect, query: Any, head: str | None = None
) -> Statement:
    """Compiles a `records` read: every column, filtered, sorted and paged; `head` is the
    table's `select_all`, when the caller keeps it."""
    read = read_query(schema, dialect, query)
    page, paging = dialect.page(read.limit, read.offset)
    if head is None:
        head = select_all(schema, dialect)
    sql = f"{head}{read.where.sql}{read.order}{page}"
    return Statement(sql, [*read.where.params, *paging])


def compile_count(schema: TableSchema, dialect: Dialect, query: Any) -> Statement:
    """Compiles a `count`: the matching rows, paging ignored."""
    read = read_query(schema, dialect, query)
    return Statement(
        f"SELECT COUNT(*) FROM {dialect.table(schema.name)}{read.where.sql}", read.where.params
    )


def compile_aggregate(
    schema: TableSchema, dialect: Dialect, function: Any, column: Any, query: Any
) -> Statement:
    """Compiles an aggregate over the matching rows, paging ignored: `count` counts rows, the
    others need an integer or number column and skip absent cells.
    """
    if function not in AGGREGATES:
        raise _refuse(f"unknown aggregate {preview(function)}", function=preview(function))
    target = _column(schema, column, "aggregate")
    read = read_query(schema, dialect, query)
    quoted = dialect.quote(target.name)
    if function == "count":
        expression = "COUNT(*)"
    elif target.type not in _NUMERIC:
        raise _refuse(f"aggregate {function!r} needs a number column, not {target.type}")
    else:
        expression = {
            "sum": dialect.total(quoted),
            "average": dialect.mean(quoted),
            "minimum": f"MIN({quoted})",
            "maximum": f"MAX({quoted})",
        }[function]
    return Statement(
        f"SELECT {expression} FROM {dialect.table(schema.name)}{read.where.sql}", read.where.params
    )
