"""The SQL compiler, read as text: values are always bound, names always quoted."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.database import OPERATORS, Column
from orkestrel.database.compiler import compile_count, compile_records, compile_where
from orkestrel.database.dialect import Dialect, postgres_dialect, sqlite_dialect
from orkestrel.database.schema import build_schemas

SCHEMA = build_schemas(
    {
        "t": {
            "id": "string",
            "s": Column("string", optional=True),
            "n": Column("number", optional=True),
            'we"ird%': Column("integer", optional=True),
        }
    }
)["t"]
DIALECTS = [sqlite_dialect(strict=True), postgres_dialect("ns")]


def condition(column: str, operator: str, *values: Any, connector: str | None = None) -> Any:
    result: dict[str, Any] = {"column": column, "operator": operator, "values": list(values)}
    if connector:
        result["connector"] = connector
    return result


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_the_fold_nests_to_the_left_with_each_connector_joining_the_next(dialect: Dialect) -> None:
    where = compile_where(
        SCHEMA,
        dialect,
        [
            condition("s", "equals", "a", connector="or"),
            condition("s", "equals", "b", connector="and"),
            condition("n", "above", 1),
            condition("n", "below", 9),
        ],
    )
    m = dialect.mark
    assert where.sql == (
        f' WHERE ((("s" = {m} OR "s" = {m}) AND "n" > {m}) AND ("n" < {m} OR "n" IS NULL))'
    )
    assert where.params == ["a", "b", 1, 9]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_identifiers_are_quoted_and_escaped(dialect: Dialect) -> None:
    statement = compile_records(
        SCHEMA, dialect, {"conditions": [condition('we"ird%', "equals", 1)], "limit": 3}
    )
    quoted = '"we""ird%%"' if dialect.name == "postgres" else '"we""ird%"'
    assert quoted in statement.sql
    table = '"ns"."t"' if dialect.name == "postgres" else '"t"'
    assert f"FROM {table} WHERE" in statement.sql
    assert statement.params == [1, 3, 0]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_postgres_specific_spellings(dialect: Dialect) -> None:
    like = compile_where(SCHEMA, dialect, [condition("s", "like", "a%")]).sql
    glob = compile_where(SCHEMA, dialect, [condition("s", "glob", "a*%")])
    if dialect.name == "sqlite":
        assert like == ' WHERE orkestrel_like(?, "s")'
        assert glob.params == ["a*%"]
    else:
        assert like == ' WHERE ("s" COLLATE "default") ILIKE %s ESCAPE \'\''
        assert glob.params == ["a%\\%"]


def test_count_ignores_paging_and_order() -> None:
    statement = compile_count(
        SCHEMA,
        DIALECTS[0],
        {"order": [{"column": "s", "direction": "descending"}], "limit": 1, "offset": 5},
    )
    assert statement.sql == 'SELECT COUNT(*) FROM "t"'
    assert statement.params == []


def test_every_operator_compiles_on_both_dialects() -> None:
    arity = {"between": 2, "absent": 0, "present": 0, "any": 3, "none": 3}
    for dialect in DIALECTS:
        for operator in OPERATORS:
            values = ["v"] * arity.get(operator, 1)
            where = compile_where(SCHEMA, dialect, [condition("s", operator, *values)])
            assert where.sql.startswith(" WHERE ")
            assert "'v'" not in where.sql


NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
)
TEXT = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]), max_size=30)
VALUES = {"s": st.one_of(TEXT, NUMBERS), "n": NUMBERS, 'we"ird%': NUMBERS}


@st.composite
def conditions(draw: st.DrawFn) -> dict[str, Any]:
    column = draw(st.sampled_from(sorted(VALUES)))
    operator = draw(
        st.sampled_from(["equals", "not", "above", "below", "from", "to", "any", "none"])
    )
    count = draw(st.integers(0, 3)) if operator in ("any", "none") else 1
    values = [draw(VALUES[column]) for _ in range(count)]
    return condition(
        column, operator, *values, connector=draw(st.sampled_from([None, "and", "or"]))
    )


@given(st.lists(conditions(), max_size=8))
def test_no_value_ever_reaches_the_sql_text(chosen: list[Any]) -> None:
    for dialect in DIALECTS:
        where = compile_where(SCHEMA, dialect, chosen)
        text = where.sql
        for token in ("'", ";", "--"):
            assert token not in text.replace("''", "")
        marks = text.count(dialect.mark)
        assert marks == len(where.params)
