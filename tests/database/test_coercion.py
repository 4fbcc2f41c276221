"""One number-coercion rule: the database layer reads numeric strings exactly as the contract's
number parser does."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.contract import ParseError, create_contract, number_shape
from orkestrel.database import DatabaseError, create_database
from orkestrel.database.helpers import parse_integer, parse_number

pytestmark = pytest.mark.anyio

NUMBER = create_contract(number_shape())


def contract_number(text: str) -> float | None:
    try:
        value = NUMBER.parse(text)
    except ParseError:
        return None
    return float(value)


DISAGREEMENTS = [
    ("1_000", None),
    ("\uff11\uff12", None),
    ("\u0663", None),
    ("\u0967", None),
    ("0x10", 16),
    ("0X1f", 31),
    ("0o17", 15),
    ("0b101", 5),
    ("\ufeff7", 7),
    ("\u30007\u3000", 7),
    ("\x1c7", None),
    ("", None),
    ("   ", None),
    ("Infinity", None),
    ("-Infinity", None),
    ("nan", None),
    ("1e400", None),
    ("5.", 5),
    (".5", 0.5),
    ("+7", 7),
    ("-0x10", None),
]


@pytest.mark.parametrize(("text", "expected"), DISAGREEMENTS, ids=repr)
def test_numeric_strings_read_as_the_contract_reads_them(text: str, expected: float | None) -> None:
    assert contract_number(text) == expected
    assert parse_number(text) == expected


@given(
    st.one_of(
        st.text(),
        st.from_regex(r"\s*[+-]?(0[xob])?[0-9a-fA-F_.eE+-]{1,12}\s*", fullmatch=True),
        st.integers().map(str),
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
    )
)
def test_the_database_and_the_contract_accept_the_same_strings(text: str) -> None:
    mine, theirs = parse_number(text), contract_number(text)
    assert (mine is None) == (theirs is None), text
    if mine is not None and theirs is not None:
        assert float(mine) == theirs, text


def test_decimal_integers_keep_their_exact_value() -> None:
    assert parse_integer("9007199254740993") == 9007199254740993
    assert parse_integer(" -9223372036854775808 ") == -(2**63)
    assert parse_integer("9223372036854775808") is None
    assert parse_integer("0x10") == 16


async def test_cells_and_operands_follow_the_contract_rule() -> None:
    database = create_database(tables={"items": {"id": "integer", "price": "number"}})
    items = database.table("items")
    assert await items.add({"id": "0x10", "price": "0b11"}) == 16
    assert await items.get(16) == {"id": 16, "price": 3}
    for bad in ("1_000", "\uff11", "\u0663"):
        with pytest.raises(DatabaseError) as refused:
            await items.add({"id": 1, "price": bad})
        assert refused.value.code == "VALIDATION"
    query: Any = {"conditions": [{"column": "price", "operator": "equals", "values": ["0x3"]}]}
    assert await items.keys() == [16]
    assert [row["id"] for row in await items.records(query)] == [16]
    with pytest.raises(DatabaseError):
        await items.records(
            {"conditions": [{"column": "price", "operator": "equals", "values": ["3_0"]}]}
        )
    await database.close()
