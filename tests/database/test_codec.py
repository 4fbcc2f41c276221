"""The row codec's fast path agrees with its full, coercing path."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orkestrel.database import Column, DatabaseError
from orkestrel.database.codec import RowCodec
from orkestrel.database.dialect import postgres_dialect, sqlite_dialect
from orkestrel.database.schema import build_schemas

SCHEMA = build_schemas(
    {
        "t": {
            "id": "string",
            "n": Column("integer", optional=True),
            "x": Column("number", optional=True),
            "b": Column("boolean", optional=True),
            "s": Column("string", optional=True),
        }
    }
)["t"]
CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
)
ROWS = st.dictionaries(st.sampled_from(["id", "n", "x", "b", "s", "zz"]), CELLS, max_size=6)


def outcome(method: Any, value: Any) -> Any:
    try:
        return method(value)
    except DatabaseError as error:
        return error.code


@given(st.lists(ROWS, max_size=4))
def test_the_fast_path_encodes_as_the_full_path_does(rows: list[dict[str, Any]]) -> None:
    for dialect in (sqlite_dialect(strict=True), postgres_dialect("p")):
        codec = RowCodec(SCHEMA, dialect, lambda: "generated")
        full = [outcome(codec.encode, row) for row in rows]
        if any(isinstance(item, str) for item in full):
            assert outcome(codec.encode_rows, rows) == "VALIDATION"
            continue
        keys, batch = codec.encode_rows(rows)
        assert keys == [key for key, _ in full]
        assert [list(params) for params in batch] == [params for _, params in full]
        for ours, theirs in zip(batch, full, strict=True):
            assert [type(v) for v in ours] == [type(v) for v in theirs[1]]


DECODE_SCHEMA = build_schemas(
    {
        "t": {
            "id": "string",
            "n": Column("integer", optional=True),
            "x": Column("number", optional=True),
            "b": Column("boolean", optional=True),
            "j": Column("json", optional=True),
        }
    }
)["t"]
ENGINE_CELLS = st.one_of(
    st.none(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.sampled_from([0, 1, 2, -1, 0.0, 1.0, 2**53, 2**53 + 2, 2.0**53, 2.0**53 + 2, -(2.0**53)]),
    st.text(max_size=5),
)
ENGINE_ROWS = st.tuples(
    st.text(max_size=3),
    ENGINE_CELLS,
    ENGINE_CELLS,
    ENGINE_CELLS,
    st.one_of(st.none(), st.sampled_from(['{"a": [1, 2.5]}', "3", "null", '"x"'])),
)


@given(st.lists(ENGINE_ROWS, max_size=6))
def test_rows_decode_in_rust_as_the_python_decoder_does(rows: list[tuple[Any, ...]]) -> None:
    for dialect in (sqlite_dialect(strict=True), postgres_dialect("p")):
        codec = RowCodec(DECODE_SCHEMA, dialect, None)
        expected = [codec.decode(row) for row in rows]
        decoded = codec.decode_rows(rows)
        assert decoded == expected
        for ours, theirs in zip(decoded, expected, strict=True):
            assert list(ours) == list(theirs)
            assert [type(v) for v in ours.values()] == [type(v) for v in theirs.values()]


def test_a_row_of_the_wrong_width_is_refused_by_both_decoders() -> None:
    codec = RowCodec(DECODE_SCHEMA, sqlite_dialect(strict=True), None)
    with pytest.raises(ValueError, match="shorter"):
        codec.decode(("a", 1))
    with pytest.raises(ValueError, match="2 values for 5 columns"):
        codec.decode_rows([("a", 1)])
